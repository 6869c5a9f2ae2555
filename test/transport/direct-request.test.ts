// The node:http client for single requests (src/transport/direct-request.ts), over loopback: the body's
// length, cancelling before and while waiting, time-outs with their codes, and destroyAll.
import { describe, expect, it } from 'vitest';
import { DirectClient, HEADERS_TIMEOUT } from '../../src/transport/direct-request.js';
import { failure, useLoopbackServers } from './loopback.js';

const server = useLoopbackServers();
const client = (patch: Partial<{ connectMs: number; headersMs: number; idleMs: number }> = {}) =>
  new DirectClient({ connectMs: 2000, headersMs: 5000, idleMs: 5000, ...patch });

describe('DirectClient', () => {
  it('a string body goes with its byte length, never chunked', async () => {
    const s = await server((_q, res) => void res.end('ok'));
    const res = await client().send(new URL(s.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"é":1}' });
    res.body.resume();
    expect(s.requests[0]!.headers['content-length']).toBe('8'); // é is two bytes
    expect(s.requests[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  it('an already-cancelled request is not sent: an AbortError that says so', async () => {
    const s = await server((_q, res) => void res.end('ok'));
    const controller = new AbortController();
    controller.abort();
    const error = await failure(client().send(new URL(s.url), { method: 'GET', headers: {}, signal: controller.signal }));
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({ name: 'AbortError', code: 'ABORT_ERR', message: 'the request was cancelled' });
    expect(s.requests).toHaveLength(0);
  });

  it('cancelled while waiting for the headers: the same AbortError', async () => {
    const s = await server(() => undefined); // never answers
    const controller = new AbortController();
    const pending = client().send(new URL(s.url), { method: 'GET', headers: {}, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect({ name: error.name, code: error.code }).toEqual({ name: 'AbortError', code: 'ABORT_ERR' });
  });

  it('no headers in time: its own code and the limit in ms', async () => {
    const s = await server(() => undefined);
    const error = await failure(client({ headersMs: 100 }).send(new URL(s.url), { method: 'GET', headers: {} }));
    expect({ code: error.code, message: error.message }).toEqual({ code: HEADERS_TIMEOUT, message: 'no response headers after 100 ms' });
  });

  it('destroyAll ends a request still waiting', async () => {
    const s = await server(() => undefined);
    const c = client();
    const pending = c.send(new URL(s.url), { method: 'GET', headers: {} });
    await new Promise((r) => setTimeout(r, 50));
    c.destroyAll();
    const error = await failure(pending);
    // Ended by us, at once: not one of the time-outs.
    expect(error.code).toBe('ECONNRESET');
  });
});
