// sendRequest's smaller promises, over loopback: what --verbose shows, when "no API key" is said, the
// 2xx boundary, repeated headers, the pool's headers wait for --no-stream, and the pool's cached secrets.
import { describe, expect, it } from 'vitest';
import { ConnectionPool, sendRequest, type StreamedBody } from '../../src/transport/http.js';
import { connection, failure, json, useLoopbackServers } from './loopback.js';

const server = useLoopbackServers();

const upload = (text: string): StreamedBody => ({
  contentType: 'application/x-ndjson',
  length: Buffer.byteLength(text),
  async *open() {
    yield Buffer.from(text);
  },
});

describe('--verbose lines', () => {
  it('a streamed upload is named with its size, sent with its own content type only', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const lines: string[] = [];
    await (await sendRequest({ conn: connection(s.url), method: 'POST', path: '/files', upload: upload('{"a":1}\n'), log: (l) => lines.push(l) })).text();
    expect(lines).toContain('> body: (streamed, 8 bytes)');
    expect(s.requests[0]!.headers['content-type']).toBe('application/x-ndjson');
  });

  it('a GET has no body line; the status line gives a plausible duration', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const lines: string[] = [];
    await (await sendRequest({ conn: connection(s.url), method: 'GET', path: '/models', log: (l) => lines.push(l) })).text();
    expect(lines.some((l) => l.startsWith('> body:'))).toBe(false);
    const ms = Number(/^< 200 OK \((\d+) ms\)$/.exec(lines.find((l) => l.startsWith('< 200'))!)![1]);
    expect(ms).toBeLessThan(60_000);
  });

  it('a body of exactly 64 KiB is shown whole', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const lines: string[] = [];
    const body = { p: 'x'.repeat(64 * 1024 - 8) }; // {"p":"…"} is 8 characters around it
    await (await sendRequest({ conn: connection(s.url), method: 'POST', path: '/c', body, log: (l) => lines.push(l) })).text();
    expect(lines).toContain(`> body: ${JSON.stringify(body)}`);
  });

  it('an error body is shown with secrets masked; an empty one gets no line', async () => {
    const conn = connection('', { retries: 0 });
    const s = await server((q, res) => (q.url === '/v1/empty' ? void res.writeHead(500).end() : json(res, 400, { error: { message: `bad key ${conn.apiKey}` } })));
    conn.baseUrl = s.url;
    const lines: string[] = [];
    await failure(sendRequest({ conn, method: 'GET', path: '/x', log: (l) => lines.push(l) }));
    expect(lines).toContain('< body: {"error":{"message":"bad key [redacted]"}}');
    const quiet: string[] = [];
    await failure(sendRequest({ conn, method: 'GET', path: '/empty', log: (l) => quiet.push(l) }));
    expect(quiet.some((l) => l.startsWith('< body:'))).toBe(false);
  });

  it('retries are logged when nobody else shows them: the reason, the count and the wait', async () => {
    const s = await server((_q, res, _r, i) => (i === 0 ? json(res, 503, {}, { 'retry-after-ms': '5' }) : json(res, 200, {})));
    const lines: string[] = [];
    await (await sendRequest({ conn: connection(s.url), method: 'GET', path: '/x', log: (l) => lines.push(l) })).text();
    expect(lines).toContain('HTTP 503 from the gateway: retry 1 of 2 in 5 ms');
  });

  it('"no API key" only when neither a key nor a credential header (in any case) is there', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const said = async (patch: Parameters<typeof connection>[1]) => {
      const lines: string[] = [];
      await (await sendRequest({ conn: connection(s.url, patch), method: 'GET', path: '/x', log: (l) => lines.push(l) })).text();
      return lines.includes('no API key configured: sending no auth header');
    };
    expect(await said({ apiKey: undefined })).toBe(true);
    expect(await said({ apiKey: undefined, headers: { Authorization: 'Bearer from-header' } })).toBe(false);
    expect(await said({})).toBe(false);
  });
});

describe('responses', () => {
  it('300 is not a success', async () => {
    const s = await server((_q, res) => json(res, 300, { choices: [] }));
    const error = await failure(sendRequest({ conn: connection(s.url, { retries: 0 }), method: 'GET', path: '/x' }));
    expect(error.message).toContain('HTTP 300');
  });

  it('a header sent twice is one value joined by a comma', async () => {
    const s = await server((_q, res) => {
      res.setHeader('x-multi', ['a', 'b']);
      json(res, 200, {});
    });
    const res = await sendRequest({ conn: connection(s.url), method: 'GET', path: '/x' });
    await res.text();
    expect(res.headers['x-multi']).toBe('a, b');
  });

  it('a cross-origin redirect without --verbose still drops the key; each new origin is said once', async () => {
    const last = await server((_q, res) => json(res, 200, { ok: true }));
    const middle = await server((_q, res) => void res.writeHead(307, { location: `${last.url}/end` }).end());
    const first = await server((_q, res) => void res.writeHead(307, { location: `${middle.url}/hop` }).end());
    expect(await (await sendRequest({ conn: connection(first.url), method: 'GET', path: '/start' })).text()).toBe('{"ok":true}');
    expect(last.requests[0]!.headers.authorization).toBeUndefined();
    const lines: string[] = [];
    await (await sendRequest({ conn: connection(first.url), method: 'GET', path: '/start', log: (l) => lines.push(l) })).text();
    expect(lines.filter((l) => l.includes('not sending the API key'))).toHaveLength(1);
  });

  it('a redirect to https is followed (and fails as a connection), not refused as unsupported', async () => {
    const s = await server((_q, res) => void res.writeHead(302, { location: `https://127.0.0.1:${new URL(s.url).port}/v1/tls` }).end());
    const error = await failure(sendRequest({ conn: connection(s.url, { retries: 0 }), method: 'GET', path: '/x' }));
    expect(error.message).not.toContain('unsupported address');
    expect(error.exitCode).toBe(7);
  });
});

describe('a shared pool', () => {
  it('--no-stream waits for the whole answer past the streaming headers limit; a streamed request does not', async () => {
    const s = await server((_q, res) => void setTimeout(() => json(res, 200, { late: true }), 2500));
    // undici checks its timers about once a second: the answer comes well after the 300 ms limit.
    const conn = connection(s.url, { retries: 0, timeouts: { connectMs: 2000, headersMs: 300, idleMs: 5000 } });
    const pool = new ConnectionPool(conn);
    try {
      const pooled = { ...conn, pool };
      expect(await (await sendRequest({ conn: pooled, method: 'POST', path: '/c', body: {}, wholeAnswer: true })).text()).toBe('{"late":true}');
      const error = await failure(sendRequest({ conn: pooled, method: 'POST', path: '/c', body: {} }));
      expect(error.message).toContain('timed out waiting for response headers');
    } finally {
      pool.close();
    }
  });

  it('secrets worked out once per connection, again when its key, headers or proxy change', () => {
    const conn = connection('http://127.0.0.1:9/v1');
    const pool = new ConnectionPool(conn);
    try {
      const first = pool.secretsOf(conn);
      expect(pool.secretsOf(conn)).toBe(first);
      conn.apiKey = 'sk-another-key-98765';
      expect(pool.secretsOf(conn)).toContain('sk-another-key-98765');
      conn.headers = { 'X-Token': 'tok-new-secret-1' };
      expect(pool.secretsOf(conn)).toContain('tok-new-secret-1');
      conn.proxy = 'http://user:proxy-pass-77@127.0.0.1:3128';
      expect(pool.secretsOf(conn).some((s) => s.includes('proxy-pass-77'))).toBe(true);
    } finally {
      pool.close();
    }
  });
});
