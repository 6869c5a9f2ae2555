// SPEC §20 "Dev gateway": with --api-key every route needs the key (the request log and stats included),
// refused requests are never stored, the log is bounded, credentials in it are [redacted], and only
// requests whose Host names the listening address are answered (DNS rebinding).
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { asAny, bodyFor, post, useGateway } from './support.js';

const KEY = 'sk-harden-0123456789';
const keyed = useGateway({ apiKey: KEY });
const open = useGateway();
const withKey = { authorization: `Bearer ${KEY}` };

/** A raw request, so the Host header can be anything (fetch does not let a script set it). */
function rawRequest(port: number, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('with --api-key', () => {
  it('the request log and the stats need the key like every other route', async () => {
    const url = keyed().url;
    for (const [path, method] of [['/__gatechat/requests', 'GET'], ['/__gatechat/requests', 'DELETE'], ['/__gatechat/stats', 'GET'], ['/nowhere', 'GET']] as const) {
      expect((await fetch(url + path, { method })).status, `${method} ${path}`).toBe(401);
      expect((await fetch(url + path, { method, headers: { 'x-api-key': 'wrong' } })).status, `${method} ${path}`).toBe(401);
    }
    expect((await fetch(`${url}/__gatechat/requests`, { headers: withKey })).status).toBe(200);
    expect((await fetch(`${url}/__gatechat/stats`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    expect((await fetch(`${url}/nowhere`, { headers: withKey })).status).toBe(404);
  });

  it('a request refused for its credentials is never stored', async () => {
    await (await post(keyed(), 'chat', bodyFor('chat', 'echo', 'secret prompt'), { headers: { authorization: 'Bearer wrong' } })).text();
    await (await post(keyed(), 'messages', bodyFor('messages', 'echo', 'secret prompt'))).text();
    await (await fetch(`${keyed().url}/v1/models`)).text();
    expect(keyed().requests).toHaveLength(0);
    const stats = await (await fetch(`${keyed().url}/__gatechat/stats`, { headers: withKey })).json().then(asAny);
    expect(stats.requests).toBe(0);
  });

  it('credentials in the served log are [redacted]: no character of the key', async () => {
    await (await post(keyed(), 'chat', bodyFor('chat', 'echo'), { headers: withKey })).text();
    await (await post(keyed(), 'messages', bodyFor('messages', 'echo'), { headers: { 'x-api-key': KEY, cookie: 'session=abcdef' } })).text();
    const served = await (await fetch(`${keyed().url}/__gatechat/requests`, { headers: withKey })).json().then(asAny);
    expect(served.map((r: any) => [r.headers.authorization, r.headers['x-api-key'], r.headers.cookie])).toEqual([
      ['Bearer [redacted]', undefined, undefined],
      [undefined, '[redacted]', '[redacted]'],
    ]);
    // Not a prefix, not a suffix: no 4 characters of the key anywhere in the served log.
    const text = JSON.stringify(served);
    for (let i = 0; i + 4 <= KEY.length; i++) expect(text).not.toContain(KEY.slice(i, i + 4));
  });
});

describe('the request log is bounded', () => {
  it('keeps the last 1 000 requests, oldest dropped first', async () => {
    for (let i = 0; i < 1010; i += 101) {
      await Promise.all(Array.from({ length: Math.min(101, 1010 - i) }, (_, j) => post(open(), 'chat', bodyFor('chat', 'echo', `n${i + j}`)).then((r) => r.text())));
    }
    const log = open().requests;
    expect(log).toHaveLength(1000);
    const prompts = new Set(log.map((r: any) => r.body.messages[0].content));
    // Whatever order concurrent requests arrived in, the ten dropped are among the first batch.
    expect([...Array(1010).keys()].filter((n) => !prompts.has(`n${n}`)).every((n) => n < 101)).toBe(true);
    expect(prompts.has('n1009')).toBe(true);
    const stats = await (await fetch(`${open().url}/__gatechat/stats`)).json().then(asAny);
    expect(stats.requests).toBe(1000);
  });

  it('keeps at most 64 MiB of bodies, oldest dropped first', { timeout: 60_000 }, async () => {
    const big = 'x'.repeat(15 * 1024 * 1024);
    for (let i = 0; i < 5; i++) await (await post(open(), 'chat', bodyFor('chat', 'fail-400', `${i}${big}`))).text();
    // 5 × 15 MiB is over 64 MiB: the first is gone, the last four (60 MiB) stay.
    const first = open().requests.map((r: any) => r.body.messages[0].content[0]);
    expect(first).toEqual(['1', '2', '3', '4']);
    await (await post(open(), 'chat', bodyFor('chat', 'echo', 'small'))).text();
    expect(open().requests.map((r: any) => r.body.messages[0].content[0])).toEqual(['1', '2', '3', '4', 's']);
  });
});

describe('Host header (DNS rebinding)', () => {
  it('answers only requests that name the address it listens on', async () => {
    const port = open().port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect((await rawRequest(port, '/v1/models', { host })).status, host).toBe(200);
    }
    const before = open().requests.length;
    for (const host of [`evil.example:${port}`, `127.0.0.1:${port + 1}`, 'localhost', `localhost.evil.example:${port}`, '']) {
      const res = await rawRequest(port, '/v1/chat/completions', { host, 'content-type': 'application/json' }, 'POST', JSON.stringify(bodyFor('chat', 'echo')));
      expect(res.status, host).toBe(421);
      expect(res.body).toMatch(/Host/);
      expect((await rawRequest(port, '/__gatechat/requests', { host })).status, host).toBe(421);
    }
    expect(open().requests.length).toBe(before);
  });
});
