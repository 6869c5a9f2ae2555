// A single direct request (node:http) sets V8's streaming flags once the request is on its way, in the
// time the gateway takes to answer, not before it is sent (src/transport/dispatchers.ts). Its own file:
// the flags are set once per process.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Dispatchers } from '../../src/transport/dispatchers.js';
import { connection, useLoopbackServers } from './loopback.js';

const loopback = useLoopbackServers();

describe('the direct route and V8 flags', () => {
  it('announces the flag change once the connection is up and the request written, not when the route is made', async () => {
    const order: string[] = [];
    const announced = () => void order.push('flags');
    process.on('gatechat:before-v8-flags', announced);
    // Loading node:v8 and setting the flags before the socket connects would hold back the request's
    // write by as long: they wait until it is written, in the time the gateway takes to answer.
    const onSocket = (message: unknown) => void (message as { socket: Socket }).socket.once('connect', () => order.push('connected'));
    subscribe('net.client.socket', onSocket);
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
      unsubscribe('net.client.socket', onSocket);
      process.off('gatechat:before-v8-flags', announced);
      d.destroy();
    }
    expect(order[0]).toBe('route made');
    expect(order.filter((step) => step === 'flags')).toHaveLength(1);
    expect(order.indexOf('flags')).toBeGreaterThan(order.indexOf('connected'));
    expect(order.indexOf('connected')).toBeGreaterThan(0);
  });
});
