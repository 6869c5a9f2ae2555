// undici's side of the transport on its own: a direct agent and a proxy agent with gatechat's
// time-outs, a per-request headers time-out that overrides the agent's, and discard.
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { directAgent, proxyAgent, sendThrough } from '../../src/transport/undici-route.js';
import { failure, useLoopbackServers } from './loopback.js';

const server = useLoopbackServers();
const agents: Dispatcher[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.destroy().catch(() => undefined)));
});

async function read(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += Buffer.from(chunk).toString('utf8');
  return text;
}

/** Answers /silent never, /late after 3 s, /stall with headers and one chunk, anything else with its own request line. */
async function gateway() {
  return server((q, res) => {
    if (q.url?.endsWith('/silent')) return;
    if (q.url?.endsWith('/late')) {
      setTimeout(() => res.end('late'), 3_000);
      return;
    }
    res.writeHead(200, { 'x-seen': `${q.method} ${q.url}` });
    if (q.url?.endsWith('/stall')) res.write('a');
    else res.end('ok');
  });
}

describe('directAgent and sendThrough', () => {
  it('sends and reads; the agent headers time-out applies unless the request gives its own', async () => {
    const s = await gateway();
    const agent = directAgent({ connectMs: 2_000, headersMs: 150, idleMs: 2_000 });
    agents.push(agent);
    const res = await sendThrough(agent, new URL(`${s.url}/x`), { method: 'POST', headers: { 'x-a': '1' }, body: 'hi' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-seen']).toBe('POST /v1/x');
    expect(await read(res.body)).toBe('ok');
    expect(s.requests[0]).toMatchObject({ body: 'hi', headers: { 'x-a': '1' } });

    const error = await failure(sendThrough(agent, new URL(`${s.url}/silent`), { method: 'GET', headers: {} }));
    expect(error.code).toBe('UND_ERR_HEADERS_TIMEOUT');

    const longer = directAgent({ connectMs: 2_000, headersMs: 5_000, idleMs: 2_000 });
    agents.push(longer);
    const overridden = await failure(sendThrough(longer, new URL(`${s.url}/late`), { method: 'GET', headers: {}, headersTimeout: 150 }));
    expect(overridden.code).toBe('UND_ERR_HEADERS_TIMEOUT');
  });

  it('the idle limit ends a stalled body; discard reads the rest away', async () => {
    const s = await gateway();
    const agent = directAgent({ connectMs: 2_000, headersMs: 2_000, idleMs: 150 });
    agents.push(agent);
    const res = await sendThrough(agent, new URL(`${s.url}/stall`), { method: 'GET', headers: {} });
    expect((await failure(read(res.body))).code).toBe('UND_ERR_BODY_TIMEOUT');
    const whole = await sendThrough(agent, new URL(`${s.url}/x`), { method: 'GET', headers: {} });
    await expect(whole.discard()).resolves.toBeUndefined();
  });
});

describe('proxyAgent', () => {
  it('forwards an http:// target in absolute form, with the headers and idle limits', async () => {
    const proxy = await gateway();
    const agent = await proxyAgent(proxy.origin, { connectMs: 2_000, headersMs: 150, idleMs: 150 });
    agents.push(agent);
    const res = await sendThrough(agent, new URL('http://gw.example:8080/v1/models'), { method: 'GET', headers: {} });
    expect(res.headers['x-seen']).toBe('GET http://gw.example:8080/v1/models');
    expect(await read(res.body)).toBe('ok');
    expect((await failure(sendThrough(agent, new URL('http://gw.example:8080/v1/silent'), { method: 'GET', headers: {} }))).code).toBe('UND_ERR_HEADERS_TIMEOUT');
    const stalled = await sendThrough(agent, new URL('http://gw.example:8080/v1/stall'), { method: 'GET', headers: {} });
    expect((await failure(read(stalled.body))).code).toBe('UND_ERR_BODY_TIMEOUT');
  });
});
