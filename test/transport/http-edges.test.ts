// sendRequest's edges that the other transport tests leave open: what --verbose shows (every logged
// response header, a status without a phrase, a streamed body, a proxy, retries nobody else reports,
// an error body), the no-key line, a gate that fails, an aborted start, and a pool's --no-stream wait.
import { describe, expect, it } from 'vitest';
import { ConnectionPool, RequestAbortedError, sendRequest, type AttemptGate } from '../../src/transport/http.js';
import { NetworkError } from '../../src/transport/errors.js';
import { connection, failure, json, sleep, useLoopbackServers } from './loopback.js';
import { closedPort } from '../helpers/ports.js';

const server = useLoopbackServers();


describe('--verbose', () => {
  it('logs every response header worth a line, a status without a phrase, and no body line for an empty error body', async () => {
    const logged = {
      'content-type': 'text/plain',
      'content-encoding': 'identity',
      'x-request-id': 'xr-1',
      'request-id': 'r-2',
      'retry-after': '0',
      'retry-after-ms': '1',
      'x-should-retry': 'false',
    };
    const s = await server((_q, res) => {
      res.writeHead(599, { ...logged, 'x-other': 'not logged' });
      res.end();
    });
    const lines: string[] = [];
    await failure(sendRequest({ conn: connection(s.url, { retries: 0 }), method: 'GET', path: '/models', log: (l) => lines.push(l) }));
    for (const [name, value] of Object.entries(logged)) expect(lines).toContain(`< ${name}: ${value}`);
    expect(lines.some((l) => l.includes('x-other'))).toBe(false);
    expect(lines.some((l) => /^< 599 \(\d+ ms\)$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('< body:'))).toBe(false);
  });

  it('logs a redirect target and an error body, masked', async () => {
    const s = await server((q, res) => {
      if (q.url === '/v1/old') {
        res.writeHead(308, { location: '/v1/new' });
        res.end();
      } else json(res, 400, { error: { message: 'bad sk-test-secret-1234' } });
    });
    const lines: string[] = [];
    await failure(sendRequest({ conn: connection(s.url, { retries: 0 }), method: 'GET', path: '/old', log: (l) => lines.push(l) }));
    expect(lines).toContain('< location: /v1/new');
    expect(lines).toContain(`> GET ${s.url}/new`);
    expect(lines).toContain('< body: {"error":{"message":"bad [redacted]"}}');
  });

  it('a streamed upload is logged by its length', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const lines: string[] = [];
    const upload = { contentType: 'application/jsonl', length: 3, async *open() { yield Buffer.from('{}\n'); } };
    await (await sendRequest({ conn: connection(s.url), method: 'POST', path: '/files', upload, log: (l) => lines.push(l) })).text();
    expect(lines).toContain('> body: (streamed, 3 bytes)');
    expect(lines).toContain('> Content-Type: application/jsonl');
    expect(lines).toContain('> Content-Length: 3');
    expect(s.requests[0].headers['content-type']).toBe('application/jsonl');
  });

  it('an upload replaces a content type given with -H in any case', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const upload = { contentType: 'application/jsonl', length: 3, async *open() { yield Buffer.from('{}\n'); } };
    await (await sendRequest({ conn: connection(s.url, { headers: { 'content-type': 'text/plain' } }), method: 'POST', path: '/files', upload })).text();
    expect(s.requests[0].headers['content-type']).toBe('application/jsonl');
  });

  it('retries are logged when no caller reports them', async () => {
    const s = await server((_q, res, _r, i) => (i === 0 ? json(res, 503, {}, { 'retry-after-ms': '5' }) : json(res, 200, {})));
    const lines: string[] = [];
    await (await sendRequest({ conn: connection(s.url), method: 'GET', path: '/models', log: (l) => lines.push(l) })).text();
    expect(lines).toContain('HTTP 503 from the gateway: retry 1 of 2 in 5 ms');
    expect(lines.some((l) => l.startsWith('no API key'))).toBe(false);
  });

  it('a request through a proxy says so, and an unreachable proxy is named', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const error = await failure(
      sendRequest({ conn: connection('http://gw.example:8080/v1', { proxy: `http://127.0.0.1:${port}`, retries: 0 }), method: 'GET', path: '/models', log: (l) => lines.push(l) }),
    );
    expect(lines).toContain(`> through proxy http://127.0.0.1:${port}`);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(`cannot connect to proxy http://127.0.0.1:${port}: connection refused`);
  });

  it('no key but an auth header given with -H: no "no API key" line', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const lines: string[] = [];
    await (await sendRequest({ conn: connection(s.url, { apiKey: undefined, headers: { authorization: 'Bearer tok-1' } }), method: 'GET', path: '/models', log: (l) => lines.push(l) })).text();
    expect(lines.some((l) => l.startsWith('no API key'))).toBe(false);
    expect(s.requests[0].headers.authorization).toBe('Bearer tok-1');
  });
});

describe('start and gate', () => {
  it('an already aborted signal sends nothing', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const error = await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/models', signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(s.requests).toHaveLength(0);
  });

  it('a gate that fails passes its error on; one that rejects on abort becomes an abort', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const broken: AttemptGate = { enter: () => Promise.reject(new Error('gate broken')) };
    const error = await failure(sendRequest({ conn: connection(s.url, { gate: broken }), method: 'GET', path: '/models' }));
    expect(error.message).toBe('gate broken');
    expect(error).not.toBeInstanceOf(RequestAbortedError);

    const controller = new AbortController();
    const waiting: AttemptGate = {
      enter: (signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(new Error('gave up')));
        }),
    };
    const pending = failure(sendRequest({ conn: connection(s.url, { gate: waiting }), method: 'GET', path: '/models', signal: controller.signal }));
    await sleep(20);
    controller.abort();
    expect(await pending).toBeInstanceOf(RequestAbortedError);

    const abortName = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const abortingGate: AttemptGate = { enter: () => Promise.reject(abortName) };
    expect(await failure(sendRequest({ conn: connection(s.url, { gate: abortingGate }), method: 'GET', path: '/models' }))).toBeInstanceOf(RequestAbortedError);
    expect(s.requests).toHaveLength(0);
  });
});

describe('a pool and --no-stream', () => {
  it('on a shared pool a whole answer waits past --timeout for its headers; a streamed one does not', async () => {
    const s = await server(async (_q, res) => {
      await sleep(1_500);
      json(res, 200, { ok: 1 });
    });
    const base = connection(s.url, { retries: 0, timeouts: { connectMs: 2_000, headersMs: 300, idleMs: 5_000 } });
    const pool = new ConnectionPool(base);
    try {
      const conn = { ...base, pool };
      expect(await (await sendRequest({ conn, method: 'POST', path: '/chat/completions', body: {}, wholeAnswer: true })).text()).toBe('{"ok":1}');
      const error = await failure(sendRequest({ conn, method: 'POST', path: '/chat/completions', body: {} }));
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.phase).toBe('headers');
    } finally {
      pool.close();
    }
  });
});

describe('a pool works out a request\'s URL and headers once', () => {
  it('for each path, and again when the connection\'s key, headers or base URL change; a request\'s headers are its own', async () => {
    const s = await server((_q, res) => json(res, 200, { ok: 1 }));
    const other = await server((_q, res) => json(res, 200, { ok: 2 }));
    const conn = connection(s.url, { retries: 0 });
    const pool = new ConnectionPool(conn);
    conn.pool = pool;
    // One connection object for every request, as a batch has it; its fields replaced between them.
    const send = async (path: string) => (await sendRequest({ conn, method: 'POST', path, body: {} })).text();
    try {
      await send('/chat/completions');
      await send('/messages');
      conn.apiKey = 'sk-other-key-5678';
      await send('/messages');
      conn.headers = { 'X-Team': 'blue' };
      await send('/messages');
      conn.auth = 'x-api-key';
      await send('/messages');
      conn.baseUrl = other.url;
      expect(await send('/messages')).toBe('{"ok":2}');
      expect(s.requests.map((r) => [r.url, r.headers.authorization, r.headers['x-team']])).toEqual([
        ['/v1/chat/completions', 'Bearer sk-test-secret-1234', undefined],
        ['/v1/messages', 'Bearer sk-test-secret-1234', undefined],
        ['/v1/messages', 'Bearer sk-other-key-5678', undefined],
        ['/v1/messages', 'Bearer sk-other-key-5678', 'blue'],
        ['/v1/messages', undefined, 'blue'],
      ]);
      expect(other.requests.map((r) => r.url)).toEqual(['/v1/messages']);
    } finally {
      pool.close();
    }
  });
});

describe('error bodies and retries', () => {
  it('an error body that stalls still reports the status; an abort while reading it is an abort, not the status', async () => {
    const s = await server((_q, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.write('{"error":');
    });
    const conn = connection(s.url, { retries: 0, timeouts: { connectMs: 2_000, headersMs: 2_000, idleMs: 200 } });
    const error = await failure(sendRequest({ conn, method: 'GET', path: '/models' }));
    expect(error.message).toMatch(/^gateway error: HTTP 500/);

    const controller = new AbortController();
    const patient = connection(s.url, { retries: 0 });
    const pending = failure(sendRequest({ conn: patient, method: 'GET', path: '/models', signal: controller.signal }));
    await sleep(150);
    controller.abort();
    expect(await pending).toBeInstanceOf(RequestAbortedError);
  });

  it('a gate that claims a plain failure does not requeue it: the retries are spent', async () => {
    const s = await server((_q, res) => json(res, 500, { error: { message: 'oops' } }, { 'x-should-retry': 'true' }));
    const greedy: AttemptGate = { enter: async () => ({ leave: () => true }) };
    await failure(sendRequest({ conn: connection(s.url, { gate: greedy, retries: 1 }), method: 'GET', path: '/models' }));
    expect(s.requests).toHaveLength(2);
  });

  it('a network failure is retried with its own message as the reason', async () => {
    const port = await closedPort();
    const reasons: string[] = [];
    await failure(sendRequest({ conn: connection(`http://127.0.0.1:${port}/v1`, { retries: 1 }), method: 'GET', path: '/models', onRetry: (i) => reasons.push(i.reason) }));
    expect(reasons).toEqual([`cannot connect to 127.0.0.1:${port}: connection refused`]);
  });
});
