// What batch asks of the transport: one keep-alive pool for many requests, and a gate that sees
// every attempt (retries included) start and end, with the gateway's advised wait on a 429.
import { describe, expect, it } from 'vitest';
import { ConnectionPool, sendRequest, type AttemptEnd, type AttemptGate } from '../../src/transport/http.js';
import { connection, json, useLoopbackServers } from './loopback.js';

const server = useLoopbackServers();

/** Records every attempt; `requeue` says which refusals the gate takes on itself (none by default). */
function recordingGate(requeue: (end: AttemptEnd) => boolean = () => false) {
  const events: Array<'enter' | AttemptEnd> = [];
  const gate: AttemptGate = {
    async enter() {
      events.push('enter');
      return {
        leave: (end) => {
          events.push(end);
          return requeue(end);
        },
      };
    },
  };
  return { gate, events };
}

async function drain(body: AsyncIterable<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += Buffer.from(chunk).toString('utf8');
  return text;
}

describe('ConnectionPool', () => {
  it('requests on one pool reuse their connections; without it each request opens its own', async () => {
    const ports: number[] = [];
    const s = await server((req, res) => {
      ports.push(req.socket.remotePort!);
      json(res, 200, { ok: true });
    });
    const pool = new ConnectionPool(connection(s.url));
    try {
      for (let i = 0; i < 8; i++) {
        const res = await sendRequest({ conn: connection(s.url, { pool }), method: 'GET', path: '/models' });
        await res.text();
      }
    } finally {
      pool.close();
    }
    // Reused, not one per request (undici may open a second while the first is being released).
    expect(ports).toHaveLength(8);
    expect(new Set(ports).size).toBeLessThanOrEqual(3);
    ports.length = 0;
    for (let i = 0; i < 3; i++) await (await sendRequest({ conn: connection(s.url), method: 'GET', path: '/models' })).text();
    expect(new Set(ports).size).toBe(3);
  });
});

describe('AttemptGate', () => {
  it('a 429 with retry-after-ms ends its attempt as rate limited; the answer ends as ok only once its body is read', async () => {
    const s = await server((_req, res, _rec, index) => {
      if (index === 0) json(res, 429, { error: { message: 'slow down' } }, { 'retry-after-ms': '15' });
      else json(res, 200, { answer: 42 });
    });
    const { gate, events } = recordingGate();
    const res = await sendRequest({ conn: connection(s.url, { gate }), method: 'POST', path: '/chat/completions', body: {} });
    expect(events).toEqual(['enter', { kind: 'rate_limited', waitMs: 15 }, 'enter']);
    expect(await drain(res.body)).toBe('{"answer":42}');
    expect(events.at(-1)).toEqual({ kind: 'ok' });
  });

  it('a 500 without a wait is a plain failure; a 500 with Retry-After, a 503 and a 529 (overloaded) ask everyone to slow down', async () => {
    const s = await server((_req, res, _rec, index) => {
      if (index === 0) json(res, 500, { error: { message: 'down' } });
      else if (index === 1) json(res, 500, { error: { message: 'down' } }, { 'retry-after': '0' });
      else if (index === 2) json(res, 503, { error: { message: 'overloaded' } });
      else if (index === 3) json(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'retry-after-ms': '5' });
      else json(res, 200, {});
    });
    const { gate, events } = recordingGate();
    const res = await sendRequest({ conn: connection(s.url, { gate, retries: 4 }), method: 'POST', path: '/chat/completions', body: {} });
    await res.text();
    expect(events.filter((e) => e !== 'enter')).toEqual([
      { kind: 'failed' },
      { kind: 'rate_limited', waitMs: 0 },
      { kind: 'rate_limited', waitMs: null },
      { kind: 'rate_limited', waitMs: 5 },
      { kind: 'ok' },
    ]);
  });

  it('a refusal the gate takes on itself queues the request again without spending a retry; a failure still spends one', async () => {
    const s = await server((_req, res, _rec, index) => {
      if (index < 4) json(res, 429, { error: { message: 'busy' } }, { 'retry-after-ms': '1' });
      else if (index === 4) json(res, 500, { error: { message: 'oops' } }, { 'x-should-retry': 'true' });
      else json(res, 200, { answer: 42 });
    });
    const lines: string[] = [];
    const { gate, events } = recordingGate((end) => end.kind === 'rate_limited');
    const res = await sendRequest({ conn: connection(s.url, { gate, retries: 1 }), method: 'POST', path: '/chat/completions', body: {}, log: (l) => lines.push(l) });
    expect(await res.text()).toBe('{"answer":42}');
    expect(s.requests).toHaveLength(6);
    expect(events.filter((e) => e === 'enter')).toHaveLength(6);
    expect(lines.filter((l) => /429 from the gateway: queued again .*not counted as a retry/.test(l))).toHaveLength(4);
    // The 500 used the one retry: a second failure would have ended the request.
    expect(lines.filter((l) => /retry 1 of 1/.test(l))).toHaveLength(1);
  });

  it('a refusal the gate does not take on itself spends the retries as before; x-should-retry: false and a wait over 60 s are never queued again', async () => {
    const s = await server((_req, res) => json(res, 429, { error: { message: 'busy' } }, { 'retry-after-ms': '1' }));
    const counted = recordingGate();
    await expect(sendRequest({ conn: connection(s.url, { gate: counted.gate, retries: 2 }), method: 'POST', path: '/chat/completions', body: {} })).rejects.toThrow(/HTTP 429/);
    expect(s.requests).toHaveLength(3);

    for (const headers of [{ 'x-should-retry': 'false' }, { 'retry-after': '3600' }] as Array<Record<string, string>>) {
      const t = await server((_req, res) => json(res, 429, { error: { message: 'quota' } }, headers));
      const taking = recordingGate(() => true);
      await expect(sendRequest({ conn: connection(t.url, { gate: taking.gate, retries: 2 }), method: 'POST', path: '/chat/completions', body: {} })).rejects.toThrow(/HTTP 429/);
      expect(t.requests).toHaveLength(1);
    }
  });

  it('a connection refused ends as failed, once per attempt', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const url = s.url;
    await s.close();
    const { gate, events } = recordingGate();
    await expect(sendRequest({ conn: connection(url, { gate, retries: 1 }), method: 'GET', path: '/models' })).rejects.toThrow(/refused/);
    expect(events).toEqual(['enter', { kind: 'failed' }, 'enter', { kind: 'failed' }]);
  });
});

describe('ConnectionPool secrets', () => {
  it('masks the key and -H secrets of the connection in hand, also after they were replaced on the same connection', async () => {
    // The gateway echoes whatever credentials it was sent, as a confused proxy or gateway might.
    const s = await server((req, res) => json(res, 401, { error: { message: `bad credentials ${req.headers.authorization ?? ''} ${req.headers['x-api-token'] ?? ''}` } }));
    const conn = connection(s.url, { retries: 0, apiKey: 'sk-first-aaaa1111' });
    const pool = new ConnectionPool(conn);
    conn.pool = pool;
    const message = async (): Promise<string> => {
      const error = await sendRequest({ conn, method: 'GET', path: '/models' }).then(
        () => new Error('no error'),
        (e: unknown) => e as Error,
      );
      return error.message;
    };
    try {
      expect(await message()).not.toContain('sk-first-aaaa1111');
      conn.apiKey = 'sk-second-bbbb2222';
      const second = await message();
      expect(second).toContain('bad credentials');
      expect(second).not.toContain('sk-second-bbbb2222');
      conn.headers = { 'X-Api-Token': 'tok-third-cccc3333' };
      const third = await message();
      expect(third).toContain('bad credentials');
      expect(third).not.toContain('tok-third-cccc3333');
    } finally {
      pool.close();
    }
  });
});
