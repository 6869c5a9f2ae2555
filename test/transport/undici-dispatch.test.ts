// undici requests through dispatch() with gatechat's own body (src/transport/undici-dispatch.ts): a slow
// reader pauses the socket instead of buffering the whole answer, leaving early aborts the request, and
// many requests on one signal share one abort listener. Real loopback HTTP throughout.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { directAgent, sendThrough } from '../../src/transport/undici-route.js';
import { HIGH_WATER_MARK, type DispatchedBody } from '../../src/transport/undici-dispatch.js';
import { failure, sleep, useLoopbackServers } from './loopback.js';

const server = useLoopbackServers();
const agents: Dispatcher[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.destroy().catch(() => undefined)));
});

function agent(): Dispatcher {
  const made = directAgent({ connectMs: 2_000, headersMs: 2_000, idleMs: 5_000 });
  agents.push(made);
  return made;
}

const MiB = 1024 * 1024;

describe('dispatched body', () => {
  it('a slow reader pauses the socket: the gateway cannot push the whole answer into memory; reading on gets all of it', async () => {
    const total = 48 * MiB;
    let flushed = 0; // bytes the server's socket handed to the kernel
    let finished = false;
    const s = await server(async (_q, res) => {
      res.writeHead(200, { 'content-length': String(total) });
      const piece = Buffer.alloc(MiB, 0x61);
      for (let sent = 0; sent < total; sent += MiB) {
        const more = res.write(piece, () => (flushed += MiB));
        if (!more) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end(() => (finished = true));
    });
    const res = await sendThrough(agent(), new URL(`${s.url}/big`), { method: 'GET', headers: {} });
    const body = res.body as DispatchedBody;
    const chunks = body[Symbol.asyncIterator]();
    let read = (await chunks.next()).value!.length;
    await sleep(400);
    // Paused: what waits in the process is about the high-water mark (plus the read in flight), and the
    // rest is still on the server's side (loopback socket buffers hold a few MiB at most).
    expect(body.buffered).toBeLessThanOrEqual(HIGH_WATER_MARK + 256 * 1024);
    expect(flushed).toBeLessThan(total / 2);
    expect(finished).toBe(false);
    for (let step = await chunks.next(); !step.done; step = await chunks.next()) read += step.value.length;
    expect(read).toBe(total);
    expect(finished).toBe(true);
  });

  it('leaving before the end aborts the request; after a complete answer nothing is aborted', async () => {
    let closedEarly = false;
    const s = await server((q, res) => {
      res.writeHead(200);
      if (q.url?.endsWith('/endless')) {
        res.write('first');
        res.on('close', () => (closedEarly = !res.writableEnded));
        return;
      }
      res.end('whole');
    });
    const dispatcher = agent();
    const endless = await sendThrough(dispatcher, new URL(`${s.url}/endless`), { method: 'GET', headers: {} });
    for await (const chunk of endless.body) {
      expect(chunk.toString()).toBe('first');
      break;
    }
    await sleep(100);
    expect(closedEarly).toBe(true);

    const whole = await sendThrough(dispatcher, new URL(`${s.url}/whole`), { method: 'GET', headers: {} });
    const body = whole.body as DispatchedBody;
    await sleep(50);
    expect(body.buffered).toBe(5);
    expect((await body.next()).value?.toString()).toBe('whole');
    expect(body.drained).toBe(true);
    body.destroy();
    expect(await body.next()).toEqual({ value: undefined, done: true });
    // The connection went back to the pool: the next request reuses it.
    const again = await sendThrough(dispatcher, new URL(`${s.url}/whole`), { method: 'GET', headers: {} });
    await again.discard();
  });

  it("the caller's signal aborts before the headers and during the body; its requests share one listener", async () => {
    const s = await server((q, res) => {
      if (q.url?.endsWith('/silent')) return;
      res.writeHead(200);
      res.write('part');
    });
    const dispatcher = agent();
    const controller = new AbortController();
    const { signal } = controller;
    const started = await Promise.all([1, 2, 3].map(() => sendThrough(dispatcher, new URL(`${s.url}/stream`), { method: 'GET', headers: {}, signal })));
    const waiting = failure(sendThrough(dispatcher, new URL(`${s.url}/silent`), { method: 'GET', headers: {}, signal }));
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    const reads = started.map(async (res) => {
      for await (const _ of res.body);
    });
    await sleep(50);
    controller.abort();
    expect((await waiting).name).toBe('AbortError');
    for (const read of reads) expect((await failure(read)).name).toBe('AbortError');
    expect(await failure(sendThrough(dispatcher, new URL(`${s.url}/stream`), { method: 'GET', headers: {}, signal }))).toMatchObject({ name: 'AbortError' });
  });

  it('an answer being read does not hold its raw header Buffers (they pin the socket read they came in)', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'x-one': 'a', 'x-two': 'b' });
      res.write('part');
    });
    const res = await sendThrough(agent(), new URL(`${s.url}/stream`), { method: 'GET', headers: {} });
    expect(res.headers['x-two']).toBe('b');
    // undici's controller keeps the raw headers (views into the socket's read) for as long as the body
    // holds the controller: a batch line's whole life, so they outlived two scavenges and were promoted.
    const controller = (res.body as unknown as { controller: { rawHeaders: unknown } }).controller;
    expect(controller.rawHeaders).toBeNull();
    (res.body as DispatchedBody).destroy();
  });
});
