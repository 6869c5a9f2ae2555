import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** What the proxy was asked to do: a CONNECT tunnel or a forwarded absolute-form request. */
export interface ProxiedRequest {
  kind: 'connect' | 'forward';
  /** `127.0.0.1:1234` for CONNECT; the absolute URL for a forwarded request. */
  target: string;
  headers: IncomingMessage['headers'];
}

export interface TestProxy {
  /** `http://127.0.0.1:port` */
  url: string;
  port: number;
  seen: ProxiedRequest[];
  close(): Promise<void>;
}

export type ProxyBehaviour = 'relay' | { refuse: 403 | 407 };

/**
 * A small real HTTP proxy on loopback: CONNECT tunnels (for https:// targets) and absolute-form
 * forwarding (for http:// targets), each recorded; or one that refuses everything with 403 / 407.
 */
export async function startTestProxy(behaviour: ProxyBehaviour = 'relay'): Promise<TestProxy> {
  const seen: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    seen.push({ kind: 'forward', target: req.url ?? '', headers: req.headers });
    if (behaviour !== 'relay') {
      res.writeHead(behaviour.refuse, { 'content-type': 'text/html', 'proxy-authenticate': 'Basic realm="test"' });
      return void res.end(`<html><head><title>${behaviour.refuse} refused by the test proxy</title></head></html>`);
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400);
      return void res.end('absolute-form request expected');
    }
    const headers = { ...req.headers };
    // Hop-by-hop: meant for this proxy, never passed on.
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = httpRequest(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push({ kind: 'connect', target: req.url ?? '', headers: req.headers });
    if (behaviour !== 'relay') {
      client.end(`HTTP/1.1 ${behaviour.refuse} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
