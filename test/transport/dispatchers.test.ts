import { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatchers } from '../../src/transport/dispatchers.js';
import { connection, useLoopbackServers } from './loopback.js';

const loopback = useLoopbackServers();
const made: Dispatchers[] = [];
afterEach(() => made.splice(0).forEach((d) => d.destroy()));

async function serverWithPorts(): Promise<{ url: URL; ports: number[] }> {
  const ports: number[] = [];
  const s = await loopback((req, res) => {
    ports.push(req.socket.remotePort ?? -1);
    res.end('ok');
  });
  return { url: new URL(s.url), ports };
}

async function fetchText(d: Dispatchers, url: URL, streamedBody = false): Promise<{ body: unknown; text: string; proxy: string | null }> {
  const route = await d.route(url, streamedBody);
  const res = await route.send(url, { method: 'GET', headers: {} });
  let text = '';
  for await (const chunk of res.body as AsyncIterable<Buffer>) text += chunk.toString();
  return { body: res.body, text, proxy: route.proxy };
}

describe('Dispatchers.route', () => {
  it('sends a single direct request through node:http', async () => {
    const { url } = await serverWithPorts();
    const d = new Dispatchers(connection(url.href, { proxy: null }), 5000);
    made.push(d);
    const got = await fetchText(d, url);
    expect(got).toMatchObject({ text: 'ok', proxy: null });
    expect(got.body).toBeInstanceOf(IncomingMessage);
  });

  it('sends a streamed body and a pooled caller through undici', async () => {
    const { url } = await serverWithPorts();
    const single = new Dispatchers(connection(url.href, { proxy: null }), 5000);
    const pooled = new Dispatchers(connection(url.href, { proxy: null }), 5000, true);
    made.push(single, pooled);
    expect((await fetchText(single, url, true)).body).not.toBeInstanceOf(IncomingMessage);
    expect((await fetchText(pooled, url)).body).not.toBeInstanceOf(IncomingMessage);
  });

  it('a pooled caller reuses one keep-alive connection across routes', async () => {
    const { url, ports } = await serverWithPorts();
    const pooled = new Dispatchers(connection(url.href, { proxy: null }), 5000, true);
    made.push(pooled);
    for (let i = 0; i < 8; i++) await fetchText(pooled, url);
    // undici may open a second connection while the first is being released (as in pool-gate.test.ts).
    expect(ports).toHaveLength(8);
    expect(new Set(ports).size).toBeLessThanOrEqual(3);
  });

  it('a proxy route says which proxy it goes through', async () => {
    const { url } = await serverWithPorts();
    const proxy = 'http://127.0.0.1:9/';
    const d = new Dispatchers(connection(url.href, { proxy }), 5000);
    made.push(d);
    const route = await d.route(new URL('http://example.invalid/v1'), false);
    expect(route.proxy).toBe(proxy);
  });
});

describe('Dispatchers.route on a pool: one route per origin, at most 64 kept', () => {
  const pooled = () => {
    const d = new Dispatchers(connection('http://127.0.0.1:9/v1', { proxy: null }), 5000, true);
    made.push(d);
    return d;
  };
  const host = (n: number) => new URL(`http://127.0.0.${1 + (n % 200)}:${9000 + n}/v1`);

  it('the same origin gets the same route; another origin its own, and the first is still kept', async () => {
    const d = pooled();
    const a = await d.route(host(0), false);
    const b = await d.route(host(1), false);
    expect(b).not.toBe(a);
    expect(await d.route(host(0), false)).toBe(a);
  });

  it('a 65th origin starts the list again (redirects could name any number of hosts)', async () => {
    const d = pooled();
    const first = await d.route(host(0), false);
    for (let n = 1; n < 64; n++) await d.route(host(n), false);
    expect(await d.route(host(0), false)).toBe(first);
    await d.route(host(64), false);
    expect(await d.route(host(0), false)).not.toBe(first);
  });

  it('without a pool every request gets a route of its own', async () => {
    const d = new Dispatchers(connection('http://127.0.0.1:9/v1', { proxy: null }), 5000);
    made.push(d);
    expect(await d.route(host(0), false)).not.toBe(await d.route(host(0), false));
  });
});

describe('Dispatchers: destroy and proxies', () => {
  it('destroy forgets a pool\'s routes', async () => {
    const pooled = new Dispatchers(connection('http://127.0.0.1:9/v1', { proxy: null }), 5000, true);
    made.push(pooled);
    const first = await pooled.route(new URL('http://a0.example/'), false);
    pooled.destroy();
    expect(await pooled.route(new URL('http://a0.example/'), false)).not.toBe(first);
  });

  it('requests through one proxy share its connection; the route sends the whole URL to it', async () => {
    const ports: number[] = [];
    const proxy = await loopback((req, res) => {
      ports.push(req.socket.remotePort ?? -1);
      res.end(req.url);
    });
    const d = new Dispatchers(connection('http://gw.example/v1', { proxy: proxy.origin }), 5000);
    made.push(d);
    for (const path of ['/v1/a', '/v1/b', '/v1/c', '/v1/d', '/v1/e', '/v1/f']) {
      const url = new URL(`http://gw.example${path}`);
      expect(await fetchText(d, url)).toMatchObject({ text: url.href, proxy: proxy.origin });
    }
    // One ProxyAgent for all (undici may open a second connection while the first is being released).
    expect(ports).toHaveLength(6);
    expect(new Set(ports).size).toBeLessThanOrEqual(3);
  });
});
