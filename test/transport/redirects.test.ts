// Redirects (SPEC §5.2) edge by edge, over loopback: which statuses are followed and how, and the
// addresses a gateway may not send gatechat to.
import { describe, expect, it } from 'vitest';
import { sendRequest } from '../../src/transport/http.js';
import { connection, failure, json, useLoopbackServers } from './loopback.js';

const server = useLoopbackServers();

/** Answers /v1/start with `status` and `location`, anything else with 200 {"ok":true}. */
const redirecting = (status: number, location?: string) =>
  server((q, res) => {
    if (q.url === '/v1/start') {
      res.writeHead(status, location === undefined ? {} : { location });
      res.end();
    } else json(res, 200, { ok: true });
  });

describe('redirects', () => {
  it.each([301, 302, 303])('%s turns a POST into a GET without body or Content-Length', async (status) => {
    const s = await redirecting(status, '/v1/next');
    const res = await sendRequest({ conn: connection(s.url), method: 'POST', path: '/start', body: { q: 1 } });
    expect(await res.text()).toBe('{"ok":true}');
    expect(s.requests[1]).toMatchObject({ method: 'GET', url: '/v1/next', body: '' });
    expect(s.requests[1]!.headers['content-length']).toBeUndefined();
  });

  it.each([307, 308])('%s keeps the POST and its body', async (status) => {
    const s = await redirecting(status, '/v1/next');
    await (await sendRequest({ conn: connection(s.url), method: 'POST', path: '/start', body: { q: 1 } })).text();
    expect(s.requests[1]).toMatchObject({ method: 'POST', url: '/v1/next', body: '{"q":1}' });
  });

  it('a 3xx that is not a redirect status, or one without Location, is the answer as it is', async () => {
    const notModified = await redirecting(304, '/v1/next');
    const notFollowed = await failure(sendRequest({ conn: connection(notModified.url, { retries: 0 }), method: 'GET', path: '/start' }));
    expect(notFollowed.message).toContain('HTTP 304');
    expect(notModified.requests).toHaveLength(1);
    const bare = await redirecting(302);
    const error = await failure(sendRequest({ conn: connection(bare.url, { retries: 0 }), method: 'GET', path: '/start' }));
    expect(error.message).toContain('HTTP 302');
    expect(bare.requests).toHaveLength(1);
  });

  it('an address that does not parse, or is not http(s), is refused in one line (exit 6)', async () => {
    const bad = await redirecting(302, 'http://[::1');
    const invalid = await failure(sendRequest({ conn: connection(bad.url), method: 'GET', path: '/start' }));
    expect(invalid.message).toBe('the gateway redirected to an invalid address: "http://[::1"');
    expect(invalid.exitCode).toBe(6);
    const file = await redirecting(302, 'file:///etc/passwd');
    const unsupported = await failure(sendRequest({ conn: connection(file.url), method: 'GET', path: '/start' }));
    expect(unsupported.message).toBe('the gateway redirected to an unsupported address: file:');
    expect(unsupported.exitCode).toBe(6);
  });

  it('five redirects are followed; the sixth is refused naming the origin', async () => {
    const s = await server((q, res) => {
      const n = Number(/\/v1\/r(\d+)/.exec(q.url ?? '')?.[1] ?? 0);
      if (n < 5) {
        res.writeHead(307, { location: `/v1/r${n + 1}` });
        res.end();
      } else json(res, 200, { hops: n });
    });
    expect(await (await sendRequest({ conn: connection(s.url), method: 'GET', path: '/r0' })).text()).toBe('{"hops":5}');
    const loop = await redirecting(307, '/v1/start');
    const error = await failure(sendRequest({ conn: connection(loop.url), method: 'GET', path: '/start' }));
    expect(error.message).toBe(`too many redirects (more than 5) from ${loop.origin}`);
  });

  it('credentials dropped at another origin stay dropped when it redirects back; -v says so once', async () => {
    let home = '';
    const other = await server((_q, res) => {
      res.writeHead(307, { location: `${home}/v1/back` });
      res.end();
    });
    const first = await server((q, res) => {
      if (q.url === '/v1/start') {
        res.writeHead(307, { location: `${other.url}/hop` });
        res.end();
      } else json(res, 200, { ok: true });
    });
    home = first.origin;
    const lines: string[] = [];
    await (await sendRequest({ conn: connection(first.url), method: 'GET', path: '/start', log: (l) => lines.push(l) })).text();
    expect(first.requests[1]!.url).toBe('/v1/back');
    expect(first.requests[1]!.headers.authorization).toBeUndefined();
    expect(lines.filter((l) => l.includes('not sending the API key'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('< location: '))).toHaveLength(2);
  });
});
