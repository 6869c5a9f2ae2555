// DirectClient (node:http, one connection per request) on its own: the body's exact length, its
// time-outs and their codes, aborts before and after the headers, destroyAll, discard.
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT, DirectClient, HEADERS_TIMEOUT, IDLE_TIMEOUT, clientFor } from '../../src/transport/direct-request.js';
import { failure, sleep, useLoopbackServers } from './loopback.js';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';

const server = useLoopbackServers();
const clients: DirectClient[] = [];
afterEach(() => clients.splice(0).forEach((c) => c.destroyAll()));

function client(timeouts = { connectMs: 2_000, headersMs: 2_000, idleMs: 2_000 }): DirectClient {
  const c = new DirectClient(timeouts);
  clients.push(c);
  return c;
}

async function read(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk.toString('utf8');
  return text;
}

describe('DirectClient', () => {
  it('clientFor: node:https for https, node:http otherwise', () => {
    expect(clientFor('https:')).toBe(httpsRequest);
    expect(clientFor('http:')).toBe(httpRequest);
  });

  it('a string body goes with its length in bytes, not chunked; no body, no length', async () => {
    const s = await server((_q, res) => {
      res.writeHead(201, { 'set-cookie': ['a=1', 'b=2'] });
      res.end('done');
    });
    const c = client();
    const res = await c.send(new URL(s.url), { method: 'POST', headers: { 'X-A': '1' }, body: 'héllo' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(await read(res.body)).toBe('done');
    expect(s.requests[0].body).toBe('héllo');
    expect(s.requests[0].headers['content-length']).toBe('6');
    expect(s.requests[0].headers['transfer-encoding']).toBeUndefined();
    expect(s.requests[0].headers['x-a']).toBe('1');
    await read((await c.send(new URL(s.url), { method: 'GET', headers: {} })).body);
    expect(s.requests[1].headers['content-length']).toBeUndefined();
  });

  it('an already aborted signal rejects with an abort error and sends nothing', async () => {
    const s = await server((_q, res) => {
      res.end('x');
    });
    const error = await failure(client().send(new URL(s.url), { method: 'GET', headers: {}, signal: AbortSignal.abort() }));
    expect([error.name, error.code]).toEqual(['AbortError', 'ABORT_ERR']);
    await sleep(50);
    expect(s.requests).toHaveLength(0);
  });

  it('abort before the headers rejects; abort after them ends the body with an abort error', async () => {
    const s = await server(async (q, res) => {
      if (q.url === '/v1/slow') return; // never answers
      res.writeHead(200);
      res.write('part');
    });
    const before = new AbortController();
    const pending = failure(client().send(new URL(`${s.url}/slow`), { method: 'GET', headers: {}, signal: before.signal }));
    await sleep(100);
    before.abort();
    expect((await pending).name).toBe('AbortError');

    const after = new AbortController();
    const res = await client().send(new URL(s.url), { method: 'GET', headers: {}, signal: after.signal });
    const it = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect((await it.next()).value.toString()).toBe('part');
    after.abort();
    const error = await failure(it.next());
    expect(error.name).toBe('AbortError');
  });

  it('no headers in time: its own code and the limit; no data in time: the body fails with the idle code', async () => {
    const s = await server((q, res) => {
      if (q.url === '/v1/silent') return;
      res.writeHead(200);
      res.write('a');
    });
    const error = await failure(client({ connectMs: 2_000, headersMs: 150, idleMs: 2_000 }).send(new URL(`${s.url}/silent`), { method: 'GET', headers: {} }));
    expect([error.code, error.message]).toEqual([HEADERS_TIMEOUT, 'no response headers after 150 ms']);

    const res = await client({ connectMs: 2_000, headersMs: 2_000, idleMs: 150 }).send(new URL(s.url), { method: 'GET', headers: {} });
    const body = failure(read(res.body));
    const idle = await body;
    expect([idle.code, idle.message]).toEqual([IDLE_TIMEOUT, 'no data for 150 ms']);
  });

  it('https: a TLS handshake that never completes is a connect time-out, with its code and limit', async () => {
    const silent = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { port } = silent.address() as AddressInfo;
      const error = await failure(client({ connectMs: 150, headersMs: 2_000, idleMs: 2_000 }).send(new URL(`https://127.0.0.1:${port}/`), { method: 'GET', headers: {} }));
      expect([error.code, error.message]).toEqual([CONNECT_TIMEOUT, 'connect timeout after 150 ms']);
    } finally {
      silent.close();
    }
  });

  it('a header value Node refuses rejects at once', async () => {
    const s = await server((_q, res) => {
      res.end('x');
    });
    const error = await failure(client().send(new URL(s.url), { method: 'GET', headers: { 'X-Bad': 'a\nb' } }));
    expect(error.code).toBe('ERR_INVALID_CHAR');
    expect(s.requests).toHaveLength(0);
  });

  it('destroyAll ends a request still waiting; discard drops a body and resolves', async () => {
    const s = await server((q, res) => {
      if (q.url === '/v1/silent') return;
      res.end('x'.repeat(100_000));
    });
    const c = client();
    const pending = failure(c.send(new URL(`${s.url}/silent`), { method: 'GET', headers: {} }));
    await sleep(100);
    c.destroyAll();
    expect(await pending).toBeInstanceOf(Error);

    const res = await client().send(new URL(s.url), { method: 'GET', headers: {} });
    await res.discard();
    expect(res.body.destroyed || res.body.readableEnded).toBe(true);
  });
});
