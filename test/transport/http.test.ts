import { gzipSync } from 'node:zlib';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpError, NetworkError, StreamInterruptedError } from '../../src/transport/errors.js';
import { errors as undiciErrors } from 'undici';
import { headersTimeoutMs, isAbortError, plainHttpWarning, preHeaderError, sendRequest, type HttpRequest } from '../../src/transport/http.js';
import { connection, failure, json, useLoopbackServers, sleep } from './loopback.js';
import { closedPort } from '../helpers/ports.js';

const server = useLoopbackServers();

async function text(req: HttpRequest): Promise<string> {
  return (await sendRequest(req)).text();
}


describe('request headers', () => {
  it('bearer: Authorization, JSON, User-Agent, gzip accepted, -H added', async () => {
    const s = await server((_q, res) => json(res, 200, { ok: true }));
    const conn = connection(s.url, { headers: { 'X-Team': 'blue' } });
    expect(await text({ conn, method: 'POST', path: '/chat/completions', body: { a: 1 } })).toBe('{"ok":true}');
    const h = s.requests[0].headers;
    expect(s.requests[0].url).toBe('/v1/chat/completions');
    expect(s.requests[0].body).toBe('{"a":1}');
    expect(h.authorization).toBe('Bearer sk-test-secret-1234');
    expect(h['x-api-key']).toBeUndefined();
    expect(h['content-type']).toBe('application/json');
    expect(h['user-agent']).toMatch(/^gatechat\//);
    expect(h['accept-encoding']).toBe('gzip');
    expect(h['x-team']).toBe('blue');
  });

  it('x-api-key: key and anthropic-version, no Authorization', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    await text({ conn: connection(s.url, { auth: 'x-api-key' }), method: 'POST', path: '/messages', body: {} });
    const h = s.requests[0].headers;
    expect(h['x-api-key']).toBe('sk-test-secret-1234');
    expect(h['anthropic-version']).toBe('2023-06-01');
    expect(h.authorization).toBeUndefined();
  });

  it('no key: no auth header, and --verbose says so', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const lines: string[] = [];
    await text({ conn: connection(s.url, { apiKey: undefined }), method: 'GET', path: '/models', log: (l) => lines.push(l) });
    expect(s.requests[0].headers.authorization).toBeUndefined();
    expect(s.requests[0].headers['x-api-key']).toBeUndefined();
    expect(lines).toContain('no API key configured: sending no auth header');
  });

  it('-H overrides defaults case-insensitively', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    await text({ conn: connection(s.url, { headers: { 'user-agent': 'custom/1', 'anthropic-version': '2099-01-01' }, auth: 'x-api-key' }), method: 'GET', path: '/models' });
    expect(s.requests[0].headers['user-agent']).toBe('custom/1');
    expect(s.requests[0].headers['anthropic-version']).toBe('2099-01-01');
  });

  it('verbose log cuts a long body after 64 KiB, masking a key that straddles the cut', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const lines: string[] = [];
    const conn = connection(s.url);
    const key = conn.apiKey!;
    // {"p":"aaa…<key>…"}: the key starts a few characters before the 64 KiB mark.
    const prompt = 'a'.repeat(64 * 1024 - 10) + key + 'b'.repeat(100);
    const res = await sendRequest({ conn, method: 'POST', path: '/chat/completions', body: { p: prompt }, log: (l) => lines.push(l) });
    await res.text();
    const line = lines.find((l) => l.startsWith('> body: '))!;
    const masked = JSON.stringify({ p: prompt.replace(key, '[redacted]') }).slice(0, 64 * 1024);
    const bytes = Buffer.byteLength(JSON.stringify({ p: prompt }));
    expect(line).toBe(`> body: ${masked}… (${bytes} bytes in all; --dry-run prints the whole request)`);
  });

  it('verbose log shows the exchange but never a secret', async () => {
    const s = await server((_q, res) => json(res, 200, {}, { 'x-request-id': 'req_42' }));
    const lines: string[] = [];
    const conn = connection(s.url, { headers: { 'X-Org-Token': 'tok-very-secret' } });
    const res = await sendRequest({ conn, method: 'POST', path: '/chat/completions', body: { x: 1 }, log: (l) => lines.push(l) });
    await res.text();
    expect(res.requestId).toBe('req_42');
    const all = lines.join('\n');
    expect(all).toContain(`> POST ${s.url}/chat/completions`);
    expect(all).toContain('> Authorization: Bearer [redacted]');
    expect(all).toContain('> X-Org-Token: [redacted]');
    expect(all).toContain('> body: {"x":1}');
    expect(all).toMatch(/< 200 OK \(\d+ ms\)/);
    expect(all).toContain('< x-request-id: req_42');
    expect(all).not.toContain('sk-test-secret-1234');
    expect(all).not.toContain('tok-very-secret');
  });
});

describe('response bodies', () => {
  it('decompresses gzip, also when streamed in pieces', async () => {
    const payload = gzipSync(Buffer.from('data: héllo\n\n'.repeat(50)));
    const s = await server(async (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      for (let i = 0; i < payload.length; i += 7) {
        res.write(payload.subarray(i, i + 7));
        if (i % 70 === 0) await sleep(1);
      }
      res.end();
    });
    expect(await text({ conn: connection(s.url), method: 'GET', path: '/x' })).toBe('data: héllo\n\n'.repeat(50));
  });

  it('idle timeout on a stalled stream: NetworkError idle (exit 7)', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n'); // then nothing
    });
    const res = await sendRequest({ conn: connection(s.url, { timeouts: { connectMs: 2000, headersMs: 2000, idleMs: 300 } }), method: 'GET', path: '/x' });
    const started = Date.now();
    const error = await failure(res.text());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.phase).toBe('idle');
    expect(error.exitCode).toBe(7);
    expect(error.message).toBe('idle: no data from the gateway for 0.3 s (--timeout)');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(s.requests).toHaveLength(1);
  });

  it('reset mid-stream: StreamInterruptedError (exit 8), never retried', async () => {
    const s = await server(async (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: partial\n\n');
      await sleep(50);
      res.socket?.destroy();
    });
    const res = await sendRequest({ conn: connection(s.url), method: 'GET', path: '/x' });
    const chunks: string[] = [];
    const error = await failure(
      (async () => {
        for await (const c of res.body) chunks.push(Buffer.from(c).toString());
      })(),
    );
    expect(chunks.join('')).toBe('data: partial\n\n');
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error.exitCode).toBe(8);
    expect(error.message).toBe('stream interrupted: the connection closed before the end of the answer');
    expect(s.requests).toHaveLength(1);
  });
});

describe('errors and retries', () => {
  const fast = { 'retry-after-ms': '10' };

  it('retries 503 up to --retries, then HttpError exit 6', async () => {
    const s = await server((_q, res) => json(res, 503, { error: { message: 'overloaded' } }, fast));
    const retries: number[] = [];
    const error = await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x', onRetry: (i) => retries.push(i.attempt) }));
    expect(s.requests).toHaveLength(3);
    expect(retries).toEqual([1, 2]);
    expect(error).toBeInstanceOf(HttpError);
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe('gateway error: HTTP 503: overloaded');
  });

  it.each([
    [408, 3],
    [409, 3],
    [429, 3],
    [500, 3],
    [529, 3],
    [400, 1],
    [404, 1],
    [422, 1],
  ])('HTTP %i is sent %i times', async (status, count) => {
    const s = await server((_q, res) => json(res, status, { error: { message: 'no' } }, fast));
    await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x' }));
    expect(s.requests).toHaveLength(count);
  });

  it('--retries 0 sends once', async () => {
    const s = await server((_q, res) => json(res, 503, {}, fast));
    await failure(sendRequest({ conn: connection(s.url, { retries: 0 }), method: 'GET', path: '/x' }));
    expect(s.requests).toHaveLength(1);
  });

  it('succeeds after a retryable failure', async () => {
    const s = await server((_q, res, _r, i) => (i === 0 ? json(res, 502, {}, fast) : json(res, 200, { ok: 1 })));
    expect(await text({ conn: connection(s.url), method: 'POST', path: '/x', body: { n: 1 } })).toBe('{"ok":1}');
    expect(s.requests.map((r) => r.body)).toEqual(['{"n":1}', '{"n":1}']);
  });

  it('exit codes, gateway message and hints per status', async () => {
    const cases: Array<[number, number, string, string | undefined]> = [
      [401, 3, 'gateway rejected the request: HTTP 401: bad key', 'check the key: gatechat config set api-key'],
      [403, 3, 'gateway rejected the request: HTTP 403: bad key', 'check the key: gatechat config set api-key'],
      [404, 4, 'gateway rejected the request: HTTP 404: bad key', 'list models: gatechat models'],
      [400, 4, 'gateway rejected the request: HTTP 400: bad key', undefined],
    ];
    for (const [status, exit, message, hint] of cases) {
      const s = await server((_q, res) => json(res, status, { error: { message: 'bad key', type: 'invalid_request_error' } }, { 'x-request-id': 'r1' }));
      const error = await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x' }));
      expect([error.exitCode, error.message, error.hint, error.requestId, error.status]).toEqual([exit, message, hint, 'r1', status]);
    }
  });

  it('a key echoed in the error message is masked', async () => {
    const s = await server((_q, res) => json(res, 401, { error: { message: 'Incorrect API key provided: sk-test-secret-1234' } }));
    const error = await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x' }));
    expect(error.message).not.toContain('sk-test-secret-1234');
    expect(error.message).toContain('[redacted]');
  });

  it('429 after retries: exit 5 with the rate-limit hint', async () => {
    const s = await server((_q, res) => json(res, 429, { error: { message: 'slow down' } }, fast));
    const error = await failure(sendRequest({ conn: connection(s.url, { retries: 1 }), method: 'GET', path: '/x' }));
    expect(s.requests).toHaveLength(2);
    expect(error.exitCode).toBe(5);
    expect(error.hint).toBe('rate limited; try again later');
  });

  it('honours Retry-After: 1', async () => {
    const s = await server((_q, res, _r, i) => (i === 0 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, {})));
    const delays: number[] = [];
    const started = Date.now();
    await text({ conn: connection(s.url), method: 'GET', path: '/x', onRetry: (i) => delays.push(i.delayMs) });
    expect(delays).toEqual([1000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(s.requests).toHaveLength(2);
  });

  it('refuses a Retry-After over 60 s without sleeping it', async () => {
    const s = await server((_q, res) => json(res, 429, { error: { message: 'quota' } }, { 'retry-after': '3600' }));
    const started = Date.now();
    const error = await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x' }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.requests).toHaveLength(1);
    expect(error.exitCode).toBe(5);
    expect(error.message).toContain('HTTP 429: quota');
    expect(error.message).toContain('3600 s');
  });

  it('x-should-retry: false stops retries of a 503', async () => {
    const s = await server((_q, res) => json(res, 503, {}, { 'x-should-retry': 'false' }));
    await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x' }));
    expect(s.requests).toHaveLength(1);
  });

  it('summarises an HTML error page', async () => {
    const s = await server((_q, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body>' + 'x'.repeat(5000) + '</body></html>');
    });
    const error = await failure(sendRequest({ conn: connection(s.url, { retries: 0 }), method: 'GET', path: '/x' }));
    expect(error.message).toBe('gateway error: HTTP 502: HTML error page: 502 Bad Gateway');
  });
});

describe('network failures', () => {
  it('connection refused: exit 7, phase connect, retried', async () => {
    const port = await closedPort();
    const retries: string[] = [];
    const error = await failure(
      sendRequest({ conn: connection(`http://127.0.0.1:${port}/v1`, { retries: 1 }), method: 'GET', path: '/x', onRetry: (i) => retries.push(i.reason) }),
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.phase).toBe('connect');
    expect(error.exitCode).toBe(7);
    expect(error.message).toBe(`cannot connect to 127.0.0.1:${port}: connection refused`);
    expect(retries).toEqual([error.message]);
  });

  it('connect timeout maps to phase connect naming the limit', () => {
    // A real black-hole address is answered by the sandbox's network, so the mapping is checked directly.
    const conn = connection('http://10.255.255.1:81/v1', { timeouts: { connectMs: 300, headersMs: 5000, idleMs: 5000 } });
    const error = preHeaderError(new undiciErrors.ConnectTimeoutError(), new URL(conn.baseUrl), conn);
    expect(error.phase).toBe('connect');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe('timed out connecting to 10.255.255.1:81 after 0.3 s (--connect-timeout)');
    const tls = preHeaderError(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), new URL(conn.baseUrl), conn);
    expect(tls.retryable).toBe(false);
  });

  it('connect timeout for real: a TLS handshake that never completes is phase connect, naming the limit', async () => {
    // TCP accepts at once and the server never speaks TLS: the connection is not usable until the handshake.
    const silent = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { port } = silent.address() as AddressInfo;
      const conn = connection(`https://127.0.0.1:${port}/v1`, { retries: 0, timeouts: { connectMs: 300, headersMs: 5000, idleMs: 5000 } });
      const error = await failure(sendRequest({ conn, method: 'GET', path: '/x' }));
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.phase).toBe('connect');
      expect(error.message).toBe(`timed out connecting to 127.0.0.1:${port} after 0.3 s (--connect-timeout)`);
    } finally {
      silent.close();
    }
  });

  it('headers timeout: exit 7, phase headers, retried', async () => {
    const s = await server(() => undefined); // never answers
    const error = await failure(
      sendRequest({ conn: connection(s.url, { retries: 1, timeouts: { connectMs: 1000, headersMs: 300, idleMs: 1000 } }), method: 'GET', path: '/x' }),
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.phase).toBe('headers');
    expect(error.message).toBe('timed out waiting for response headers after 0.3 s (--timeout)');
    expect(s.requests).toHaveLength(2);
  });

  it('whole-answer (--no-stream) headers wait: the larger of --timeout and 600 s, its time-out not retried', async () => {
    const short = connection('http://127.0.0.1:1/v1', { timeouts: { connectMs: 1000, headersMs: 2000, idleMs: 2000 } });
    const long = connection('http://127.0.0.1:1/v1', { timeouts: { connectMs: 1000, headersMs: 900_000, idleMs: 2000 } });
    expect(headersTimeoutMs(short, true)).toBe(600_000);
    expect(headersTimeoutMs(long, true)).toBe(900_000);
    expect(headersTimeoutMs(short, false)).toBe(2000);
    // Waiting ten minutes in a test is not an option: the mapping of the time-out is checked directly.
    const timedOut = preHeaderError(new undiciErrors.HeadersTimeoutError(), new URL(short.baseUrl), short, true);
    expect(timedOut.phase).toBe('headers');
    expect(timedOut.retryable).toBe(false);
    expect(timedOut.message).toMatch(/after 600 s waiting for the whole answer .*not retried/);
    expect(preHeaderError(new undiciErrors.HeadersTimeoutError(), new URL(short.baseUrl), short, false).retryable).toBe(true);
  });

  it('abort while waiting for headers: prompt, recognisable', async () => {
    const s = await server(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x', signal: controller.signal }));
    expect(isAbortError(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('abort during a retry wait and mid-body', async () => {
    const s = await server((_q, res) => json(res, 503, {}, { 'retry-after': '30' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect(isAbortError(await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/x', signal: controller.signal })))).toBe(true);

    const t = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const c2 = new AbortController();
    const res = await sendRequest({ conn: connection(t.url), method: 'GET', path: '/x', signal: c2.signal });
    setTimeout(() => c2.abort(), 100);
    expect(isAbortError(await failure(res.text()))).toBe(true);
  });
});

describe('redirects', () => {
  it('to another origin: followed without the key or -H headers', async () => {
    const other = await server((_q, res) => json(res, 200, { from: 'other' }));
    const first = await server((_q, res) => {
      res.writeHead(307, { location: `${other.url}/chat/completions` });
      res.end();
    });
    const lines: string[] = [];
    const conn = connection(first.url, { headers: { 'X-Secret-Thing': 'abc' } });
    expect(await text({ conn, method: 'POST', path: '/chat/completions', body: { q: 1 }, log: (l) => lines.push(l) })).toBe('{"from":"other"}');
    const h = other.requests[0].headers;
    expect(h.authorization).toBeUndefined();
    expect(h['x-secret-thing']).toBeUndefined();
    expect(h['user-agent']).toMatch(/^gatechat\//);
    expect(other.requests[0].method).toBe('POST');
    expect(other.requests[0].body).toBe('{"q":1}');
    expect(lines.join('\n')).toContain('not sending the API key or -H headers');
  });

  it('same origin: keeps credentials; 302 turns POST into GET', async () => {
    const s = await server((q, res) => {
      if (q.url === '/v1/old') {
        res.writeHead(302, { location: '/v1/new' });
        res.end();
      } else json(res, 200, { ok: true });
    });
    await text({ conn: connection(s.url), method: 'POST', path: '/old', body: { q: 1 } });
    expect(s.requests[1]).toMatchObject({ method: 'GET', url: '/v1/new', body: '' });
    expect(s.requests[1].headers.authorization).toBe('Bearer sk-test-secret-1234');
  });

  it('stops after 5 redirects', async () => {
    const s = await server((_q, res) => {
      res.writeHead(308, { location: '/v1/loop' });
      res.end();
    });
    const error = await failure(sendRequest({ conn: connection(s.url), method: 'GET', path: '/loop' }));
    expect(error.message).toContain('too many redirects');
    expect(s.requests).toHaveLength(6);
  });
});

describe('plainHttpWarning', () => {
  it('warns only for a key over http to a non-loopback host', () => {
    expect(plainHttpWarning(connection('http://example.com/v1'))).toBe('warning: sending your API key over plain http to example.com');
    expect(plainHttpWarning(connection('http://127.0.0.1:8080/v1'))).toBeNull();
    expect(plainHttpWarning(connection('http://localhost/v1'))).toBeNull();
    expect(plainHttpWarning(connection('https://example.com/v1'))).toBeNull();
    expect(plainHttpWarning(connection('http://example.com/v1', { apiKey: undefined }))).toBeNull();
  });
});
