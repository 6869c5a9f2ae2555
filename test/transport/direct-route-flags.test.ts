// A single direct request (node:http) sets V8's streaming flags once the request is on its way, in the
// time the gateway takes to answer, not before it is sent (src/transport/dispatchers.ts). Its own file:
// the flags are set once per process.
import { describe, expect, it } from 'vitest';
import { Dispatchers } from '../../src/transport/dispatchers.js';
import { connection, useLoopbackServers } from './loopback.js';

const loopback = useLoopbackServers();

describe('the direct route and V8 flags', () => {
  it('announces the flag change after the request was sent, not when the route is made', async () => {
    const order: string[] = [];
    const announced = () => void order.push('flags');
    process.on('gatechat:before-v8-flags', announced);
    const server = await loopback((_req, res) => {
      order.push('request arrived');
      res.end('ok');
    });
    const url = new URL(server.url);
    const d = new Dispatchers(connection(url.href, { proxy: null }), 5000);
    try {
      const route = await d.route(url, false);
      order.push('route made');
      const res = await route.send(url, { method: 'GET', headers: {} });
      for await (const _ of res.body as AsyncIterable<Buffer>);
    } finally {
      process.off('gatechat:before-v8-flags', announced);
      d.destroy();
    }
    expect(order[0]).toBe('route made');
    expect(order.filter((step) => step === 'flags')).toHaveLength(1);
  });
});
