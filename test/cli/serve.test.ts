// `gatechat serve` through the built binary: its options (--port, --host, --api-key) do what they
// say, and a port in use or an address it cannot listen on is a usage error (exit 2, one line).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { binPath, makeUserDirs, runCli } from '../helpers/cli.js';

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `gatechat serve …` and resolves with its base URL once it says it is listening. */
function serve(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string; stderr: () => string }> {
  const child = spawn(process.execPath, [binPath, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  running.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = stderr.match(/listening on (http:\/\/\S+\/v1) /);
      if (match) resolve({ child, base: match[1]!, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

/** A loopback port held open by another server for the test's duration. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

describe('gatechat serve', () => {
  it('--port N listens on exactly that port, --host on that address', async () => {
    const { port, server } = await occupiedPort();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const gateway = await serve(['--port', String(port), '--host', '127.0.0.1']);
    expect(gateway.base).toBe(`http://127.0.0.1:${port}/v1`);
    const user = makeUserDirs();
    try {
      const answer = await runCli(['--base-url', gateway.base, '-m', 'echo', '--no-save', 'through serve'], { env: user.env() });
      expect(answer.code, answer.stderr).toBe(0);
      expect(answer.stdout).toBe('through serve\n');
    } finally {
      user.cleanup();
    }
    gateway.child.kill('SIGTERM');
    expect(await exited(gateway.child)).toBe(0);
  });

  it('--api-key: requests without it are refused (exit 3), with it answered; the key is never logged', async () => {
    const KEY = 'sk-serve-binary-4242';
    const gateway = await serve(['--port', '0', '--api-key', KEY]);
    const user = makeUserDirs();
    try {
      const refused = await runCli(['--base-url', gateway.base, '-m', 'echo', '--no-save', 'hi'], { env: user.env() });
      expect(refused.code).toBe(3);
      const allowed = await runCli(['--base-url', gateway.base, '-m', 'echo', '--no-save', 'hi'], { env: { ...user.env(), GATECHAT_API_KEY: KEY } });
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toBe('hi\n');
    } finally {
      user.cleanup();
    }
    gateway.child.kill('SIGINT');
    expect(await exited(gateway.child)).toBe(0);
    // A refused request's body is never read (SPEC §20): its model is not known.
    expect(gateway.stderr()).toMatch(/POST \/v1\/chat\/completions - 401 /);
    expect(gateway.stderr()).toMatch(/POST \/v1\/chat\/completions echo 200 /);
    expect(gateway.stderr()).not.toContain(KEY);
  });

  it('GATECHAT_SERVE_API_KEY stands in for --api-key', async () => {
    const gateway = await serve(['--port', '0'], { GATECHAT_SERVE_API_KEY: 'env-key-1' });
    const without = await fetch(`${gateway.base}/models`);
    expect(without.status).toBe(401);
    const withKey = await fetch(`${gateway.base}/models`, { headers: { authorization: 'Bearer env-key-1' } });
    expect(withKey.status).toBe(200);
  });

  it('a port in use is exit 2 with one line', async () => {
    const { port, server } = await occupiedPort();
    try {
      const result = await runCli(['serve', '--port', String(port)], { timeoutMs: 10_000 });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`gatechat: serve: 127.0.0.1:${port} is already in use (choose another --port, or --port 0 for any free one)\n`);
    } finally {
      server.close();
    }
  });

  it.each([
    ['192.0.2.1', 'gatechat: serve: cannot listen on 192.0.2.1: not an address of this machine (try --host 127.0.0.1)\n'],
    ['http://127.0.0.1', 'gatechat: --host: expected an IP address or host name such as 127.0.0.1, got "http://127.0.0.1"\n'],
    ['', 'gatechat: --host: expected an IP address or host name such as 127.0.0.1, got ""\n'],
  ])('--host %j is exit 2 with one line', async (host, stderr) => {
    const result = await runCli(['serve', '--port', '0', '--host', host], { timeoutMs: 10_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(stderr);
  });

  it.each(['70000', '-1', 'eighty', '1.5'])('--port %s is exit 2 with one line', async (port) => {
    const result = await runCli(['serve', `--port=${port}`], { timeoutMs: 10_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`gatechat: --port: expected 0-65535, got ${JSON.stringify(port)}\n`);
  });
});
