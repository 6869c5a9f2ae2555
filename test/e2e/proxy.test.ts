// Proxies (SPEC §14) through real loopback processes: the built binary, a small real HTTP proxy
// (test/helpers/proxy.ts) and the dev gateway, behind a TLS front for https:// targets. What undici
// does, observed here: an https:// target is reached through a CONNECT tunnel, an http:// target by
// forwarding the request in absolute form (gatechat sets proxyTunnel: false for it, as curl does).
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { repoRoot, runCli } from '../helpers/cli.js';
import { startTestProxy, type TestProxy } from '../helpers/proxy.js';
import { closedPort } from '../helpers/ports.js';

const KEY = 'sk-PROXY-canary-55aa1';
const CORE = 'PROXY-canary';
const CA = join(repoRoot, 'test', 'fixtures', 'tls', 'cert.pem');

const ctx = useGatewayAndUser();
let tls: { server: HttpsServer; base: string };
const proxies: TestProxy[] = [];

async function proxy(behaviour?: Parameters<typeof startTestProxy>[0]): Promise<TestProxy> {
  const p = await startTestProxy(behaviour);
  proxies.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

// An https:// gateway: a TLS front (the test certificate, trusted through NODE_EXTRA_CA_CERTS) that
// passes every request on to the dev gateway, naming it in Host as nginx's proxy_pass does (the dev
// gateway answers only a Host that names its own address, SPEC §20).
beforeAll(async () => {
  const dir = join(repoRoot, 'test', 'fixtures', 'tls');
  const server = createHttpsServer({ cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) }, (req, res) => {
    const upstream = httpRequest(new URL(req.url ?? '/', ctx.gateway.url), { method: req.method, headers: { ...req.headers, host: new URL(ctx.gateway.url).host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tls = { server, base: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
});

afterAll(async () => {
  tls.server.closeAllConnections();
  await new Promise<void>((resolve) => tls.server.close(() => resolve()));
});

const env = (extra: Record<string, string> = {}) => ({ ...ctx.user.env(), GATECHAT_API_KEY: KEY, NODE_EXTRA_CA_CERTS: CA, ...extra });

describe('through a proxy', () => {
  it('https:// target: a CONNECT tunnel via https_proxy, given without a scheme', async () => {
    const p = await proxy();
    const result = await runCli(['--base-url', tls.base, '-m', 'echo', 'over the tunnel'], { env: env({ https_proxy: `127.0.0.1:${p.port}` }) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('over the tunnel\n');
    expect(p.seen.map((s) => [s.kind, s.target])).toEqual([['connect', new URL(tls.base).host]]);
    // The key travelled inside the tunnel, never in the CONNECT request the proxy can read.
    expect(JSON.stringify(p.seen[0]!.headers)).not.toContain(CORE);
    expect(ctx.gateway.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('http:// target: forwarded in absolute form via HTTP_PROXY; -v names the proxy', async () => {
    const p = await proxy();
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-v', 'forwarded'], { env: env({ HTTP_PROXY: p.url }) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('forwarded\n');
    expect(result.stderr).toContain(`gatechat: > through proxy ${p.url}`);
    expect(p.seen.map((s) => [s.kind, s.target])).toEqual([['forward', `${ctx.base}/chat/completions`]]);
    expect(ctx.gateway.requests).toHaveLength(1);
  });

  it('--proxy beats HTTP_PROXY; the proxy key works and config list shows it with no password', async () => {
    const good = await proxy();
    const bad = await proxy({ refuse: 403 });
    const flag = await runCli(['--base-url', ctx.base, '-m', 'echo', '--proxy', good.url, 'by flag'], { env: env({ HTTP_PROXY: bad.url }) });
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.stdout).toBe('by flag\n');
    expect(good.seen).toHaveLength(1);
    expect(bad.seen).toHaveLength(0);

    const set = await runCli(['config', 'set', 'proxy', `user:pw-hidden-77@127.0.0.1:${good.port}`], { env: env() });
    expect(set.code, set.stderr).toBe(0);
    const list = await runCli(['config', 'list'], { env: env() });
    expect(list.stdout).toContain(`http://user:***@127.0.0.1:${good.port}`);
    expect(list.stdout).not.toContain('pw-hidden-77');
    const stored = await runCli(['--base-url', ctx.base, '-m', 'echo', 'by config'], { env: env({ HTTP_PROXY: bad.url }) });
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stdout).toBe('by config\n');
    expect(good.seen).toHaveLength(2);
    // Credentials in the proxy URL become Proxy-Authorization, for the proxy only.
    expect(good.seen[1]!.headers['proxy-authorization']).toBe(`Basic ${Buffer.from('user:pw-hidden-77').toString('base64')}`);
    expect(ctx.gateway.requests.every((r) => r.headers['proxy-authorization'] === undefined)).toBe(true);
    expect(bad.seen).toHaveLength(0);
  });

  it('NO_PROXY (a host, *, or lower-case no_proxy) sends the request direct', async () => {
    const refusing = await proxy({ refuse: 403 });
    for (const noProxy of [{ NO_PROXY: '127.0.0.1' }, { NO_PROXY: '*' }, { no_proxy: 'example.org, 127.0.0.1' }] as Record<string, string>[]) {
      const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'direct'], { env: env({ HTTP_PROXY: refusing.url, ...noProxy }) });
      expect(result.code, `${JSON.stringify(noProxy)}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toBe('direct\n');
    }
    expect(refusing.seen).toHaveLength(0);
    expect(ctx.gateway.requests).toHaveLength(3);
  });

  it('the demo gateway is in-process: a proxy in the environment is not used for it', async () => {
    const port = await closedPort();
    const result = await runCli(['demo', 'hello demo'], { env: env({ HTTP_PROXY: `http://127.0.0.1:${port}` }) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(0);
  });
});

describe('a proxy that refuses: exit 7, the proxy named, no key', () => {
  const expectProxyFailure = (result: Awaited<ReturnType<typeof runCli>>, proxyUrl: string, what: RegExp) => {
    expect(result.code, result.stderr).toBe(7);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toContain(`proxy ${proxyUrl}`);
    expect(lines[0]).toMatch(what);
    expect(result.stderr).not.toContain(CORE);
    expect(result.stderr).not.toContain('pw-hidden');
    expect(result.stdout).toBe('');
  };

  it('nothing listens on the proxy port', async () => {
    const port = await closedPort();
    const result = await runCli(['--base-url', tls.base, '-m', 'echo', '--retries', '0', 'hi'], {
      env: env({ HTTPS_PROXY: `http://user:pw-hidden@127.0.0.1:${port}` }),
    });
    expectProxyFailure(result, `http://127.0.0.1:${port}`, /connection refused/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('the proxy answers CONNECT with 403 (https:// target), with --verbose too', async () => {
    const p = await proxy({ refuse: 403 });
    const result = await runCli(['--base-url', tls.base, '-m', 'echo', 'hi'], { env: env({ HTTPS_PROXY: p.url }) });
    expectProxyFailure(result, p.url, /refused to connect to 127\.0\.0\.1:\d+: HTTP 403/);
    // Deterministic: not retried.
    expect(p.seen).toHaveLength(1);
    const verbose = await runCli(['--base-url', tls.base, '-m', 'echo', '-v', 'hi'], { env: env({ HTTPS_PROXY: p.url }) });
    expect(verbose.code).toBe(7);
    expect(verbose.stderr).not.toContain(CORE);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('the proxy wants authentication (407) for a forwarded http:// request', async () => {
    const p = await proxy({ refuse: 407 });
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: env({ HTTP_PROXY: p.url }) });
    expectProxyFailure(result, p.url, /407 Proxy Authentication Required/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('a malformed proxy is a usage error naming where it came from, before anything is sent', async () => {
    const flag = await runCli(['--base-url', ctx.base, '-m', 'echo', '--proxy', 'socks5://127.0.0.1:1', 'hi'], { env: env() });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--proxy: only http:\/\/ and https:\/\/ proxies/);
    const fromEnv = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: env({ HTTP_PROXY: 'ftp://x' }) });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/HTTP_PROXY: /);
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});
