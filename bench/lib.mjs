// Shared by the benchmarks: run a command under GNU time, take medians, start the dev gateway.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const bin = join(repoRoot, 'bin', 'gatechat.js');

/** Runs argv once under /usr/bin/time; stdout goes through a pipe we drain (the piped case). */
export function measure(argv, { env = process.env, stdin } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '__TIME__ %M %U %S', ...argv], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdoutBytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdoutBytes += chunk.length));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // A command that never reads stdin (node -e 0) may exit before this write lands: EPIPE, not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(stdin ?? '');
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const line = stderr.split('\n').find((l) => l.startsWith('__TIME__'));
      if (!line) return reject(new Error(`no timing for ${argv.join(' ')}: ${stderr}`));
      const [, rssKb, user, sys] = line.split(' ');
      resolve({ code, wallMs, rssMiB: Number(rssKb) / 1024, cpuS: Number(user) + Number(sys), stdoutBytes });
    });
  });
}

export async function series(argv, runs, options) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await measure(argv, options));
  const failed = results.find((r) => r.code !== 0);
  if (failed) throw new Error(`${argv.join(' ')} exited ${failed.code}`);
  return {
    wallMs: median(results.map((r) => r.wallMs)),
    rssMiB: Math.max(...results.map((r) => r.rssMiB)),
    cpuS: median(results.map((r) => r.cpuS)),
    stdoutBytes: results[0].stdoutBytes,
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The dev gateway as a separate process, so its CPU is not counted against the client. */
export async function startDevGateway() {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('listening')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`dev gateway exited ${code}: ${seen}`)));
  });
  child.stderr.resume();
  return { base: `http://127.0.0.1:${port}/v1`, stop: () => child.kill('SIGTERM') };
}

export const fmt = (n, digits = 1) => n.toFixed(digits);

/**
 * A scratch user for a batch benchmark: its own config and data dirs, and an environment without the
 * developer's other GATECHAT_ settings.
 */
export function batchBenchUser(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, GATECHAT_CONFIG_DIR: join(dir, 'config'), GATECHAT_DATA_DIR: join(dir, 'data') };
  for (const key of Object.keys(env)) if (key.startsWith('GATECHAT_') && !/_(CONFIG|DATA)_DIR$/.test(key)) delete env[key];
  return { dir, env };
}

/** N prompts in `dir/name`, one JSON string a line, each a short sentence that differs per line. */
export function promptsFile(dir, name, n) {
  const path = join(dir, name);
  const lines = [];
  for (let i = 1; i <= n; i++) lines.push(JSON.stringify(`prompt number ${i}: say something short about the number ${i}`));
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
