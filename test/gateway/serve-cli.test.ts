// `gatechat serve` as its own process (runServe bundled on the fly, so this runs without dist/):
// startup lines, one log line per request without the key, clean exit on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gatechat-serve-'));
const bundle = join(dir, 'serve.mjs');

beforeAll(async () => {
  await build({
    stdin: {
      contents: "import { runServe } from './src/gateway/cli.js'; void runServe({ port: 0, host: process.argv[2], apiKey: process.argv[3] });",
      resolveDir: repoRoot,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function serve(args: string[]): { child: ChildProcess; stderr: () => string; waitFor(pattern: RegExp): Promise<RegExpMatchArray> } {
  const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const waiters: (() => void)[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiters.splice(0)) w();
  });
  const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
  child.on('exit', () => clearTimeout(kill));
  return {
    child,
    stderr: () => stderr,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = stderr.match(pattern);
          if (match) resolve(match);
          else if (child.exitCode !== null) reject(new Error(`serve exited: ${stderr}`));
          else waiters.push(check);
        };
        check();
      });
    },
  };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));
}

it('prints where it listens and a sample command, logs requests, exits 0 on SIGTERM', async () => {
  const KEY = 'sk-serve-test-key-9876';
  const server = serve(['127.0.0.1', KEY]);
  const [, base] = await server.waitFor(/gatechat dev gateway listening on (http:\/\/127\.0\.0\.1:\d+\/v1) \(Chat Completions and Messages\)\n/);
  await server.waitFor(/gatechat --base-url http:\/\/127\.0\.0\.1:\d+\/v1 -m echo "hi"\n/);
  const res = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'over the wire' }] }),
  });
  expect((await res.json().then((v: any) => v)).choices[0].message.content).toBe('over the wire');
  await server.waitFor(/POST \/v1\/chat\/completions echo 200 \d+ms/);
  const log = await (await fetch(`${base.replace(/\/v1$/, '')}/__gatechat/requests`, { headers: { 'x-api-key': KEY } })).json().then((v: any) => v);
  expect(log).toHaveLength(1);
  server.child.kill('SIGTERM');
  expect(await exited(server.child)).toBe(0);
  expect(server.stderr()).not.toContain(KEY);
});

it('warns when asked to listen beyond loopback', async () => {
  const server = serve(['0.0.0.0']);
  await server.waitFor(/dev gateway listening on http:\/\/0\.0\.0\.0:\d+\/v1/);
  expect(server.stderr()).toMatch(/warning: listening on 0\.0\.0\.0/);
  server.child.kill('SIGINT');
  expect(await exited(server.child)).toBe(0);
});
