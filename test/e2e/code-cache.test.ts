// bin/code-cache.js: the V8 code cache the binary keeps between runs. It may only ever make a start
// faster — a missing, corrupt or unwritable cache must not change what a run does.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser({ userPer: 'file' });

/** Every cache file under `root`, with its modification time and bytes. */
function cacheFiles(root: string): Map<string, { mtimeMs: number; bytes: Buffer }> {
  const files = new Map<string, { mtimeMs: number; bytes: Buffer }>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(path.slice(root.length), { mtimeMs: statSync(path).mtimeMs, bytes: readFileSync(path) });
    }
  };
  walk(root);
  return files;
}

let runs = 0;
function oneShot(cacheDir: string) {
  runs += 1;
  return runCli(['--base-url', ctx.base, '-m', 'lorem-20', '--no-save', `run ${runs}`], {
    env: { ...ctx.user.env(), GATECHAT_CACHE_DIR: cacheDir },
    stdin: '',
  });
}

/** The answer of lorem-20: twenty words and a final newline. */
const LOREM_20 = /^Lorem ipsum(\s\S+){18}\n$/;

describe('the code cache', () => {
  it('is written by the first run and used, not rewritten, by the next', async () => {
    const dir = join(ctx.user.home, 'cache-used');
    const first = await oneShot(dir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(LOREM_20);
    const written = cacheFiles(dir);
    // The start-up chunks a one-shot loads, one file each, none of them empty.
    expect([...written.keys()].map((name) => basename(name).replace(/-[\w-]{8}\.cjs\.v8$/, '')).sort()).toEqual(['main', 'one-shot', 'startup']);
    for (const file of written.values()) expect(file.bytes.length).toBeGreaterThan(1000);

    const second = await oneShot(dir);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // V8 accepted every file (a rejected one — other flags, other Node — would have been written again).
    const after = cacheFiles(dir);
    expect([...after.keys()].sort()).toEqual([...written.keys()].sort());
    for (const [name, file] of after) expect(file.mtimeMs, name).toBe(written.get(name)!.mtimeMs);
  });

  // Where putting V8's flags back to their defaults gives back its flag hash (src/transport/v8-flags.ts
  // lists them for Node 20, 22 and 24), the cache is written at exit, after the answer.
  it.runIf(['20', '22', '24'].includes(process.versions.node.split('.')[0]))('holds what reading the answer compiled, so the next run does not compile it again', async () => {
    const dir = join(ctx.user.home, 'cache-answer');
    const run = await oneShot(dir);
    expect(run.code, run.stderr).toBe(0);
    const [oneShotCache] = [...cacheFiles(dir)].filter(([name]) => /[\\/]one-shot-[\w-]{8}\.cjs\.v8$/.test(name));
    // A function's string literals are in the cache only once it is compiled: '[DONE]' is the Chat
    // Completions decoder's (src/protocol/openai-chat-decoder.ts), which runs on the answer alone.
    expect(oneShotCache[1].bytes.includes('[DONE]')).toBe(true);
  });

  it('a cache written by a run that sent nothing is made again, once, by the first run that sends', async () => {
    // Whatever runs first after an install (--help, config set, the dev gateway) must not decide for good
    // which functions a one-shot finds compiled: every one it lacks is compiled again on every start.
    const dir = join(ctx.user.home, 'cache-grown');
    const help = await runCli(['--help'], { env: { ...ctx.user.env(), GATECHAT_CACHE_DIR: dir } });
    expect(help.code, help.stderr).toBe(0);
    const mainBytes = (files: Map<string, { bytes: Buffer }>) => Math.max(...[...files].filter(([name]) => /[\\/]main-[\w-]{8}\.cjs\./.test(name)).map(([, file]) => file.bytes.length));
    const afterHelp = cacheFiles(dir);
    expect(mainBytes(afterHelp)).toBeGreaterThan(1000);

    const first = await oneShot(dir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(LOREM_20);
    const afterSend = cacheFiles(dir);
    // The main chunk's cache now holds what the one-shot compiled too (the root command's action, the send path).
    expect(mainBytes(afterSend)).toBeGreaterThan(mainBytes(afterHelp));

    const second = await oneShot(dir);
    expect(second.code, second.stderr).toBe(0);
    const afterSecond = cacheFiles(dir);
    expect([...afterSecond.keys()].sort()).toEqual([...afterSend.keys()].sort());
    for (const [name, file] of afterSecond) expect(file.mtimeMs, name).toBe(afterSend.get(name)!.mtimeMs);
  });

  it('a corrupt cache file is set aside by V8 and written again; the answer is the same', async () => {
    const dir = join(ctx.user.home, 'cache-corrupt');
    expect((await oneShot(dir)).code).toBe(0);
    const written = cacheFiles(dir);
    const [victim] = [...written.keys()].filter((name) => /one-shot-/.test(name));
    writeFileSync(join(dir, victim), Buffer.alloc(written.get(victim)!.bytes.length, 0x5a));

    const run = await oneShot(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(LOREM_20);
    const rewritten = readFileSync(join(dir, victim));
    expect(rewritten.equals(Buffer.alloc(rewritten.length, 0x5a))).toBe(false);
  });

  it('a cache V8 rejects in a run that sends nothing is replaced, so the next such run reads its cache', async () => {
    const dir = join(ctx.user.home, 'cache-rejected-at-exit');
    expect((await oneShot(dir)).code).toBe(0);
    const [victim] = [...cacheFiles(dir).keys()].filter((name) => /[\\/]main-[\w-]{8}\.cjs\.v8$/.test(name));
    writeFileSync(join(dir, victim), Buffer.alloc(4096, 0x5a));
    const help = () => runCli(['--help'], { env: { ...ctx.user.env(), GATECHAT_CACHE_DIR: dir } });
    expect((await help()).code).toBe(0);
    const settled = cacheFiles(dir);
    expect((await help()).code).toBe(0);
    // Nothing written again: the second run found a cache V8 took.
    const after = cacheFiles(dir);
    expect([...after.keys()].sort()).toEqual([...settled.keys()].sort());
    for (const [name, file] of after) expect(file.mtimeMs, name).toBe(settled.get(name)!.mtimeMs);
  });

  it('a batch (its heap flags, undici) writes its cache once and uses it, not rewritten, from then on', async () => {
    // A batch changes V8's heap flags and so its flag hash: every chunk or built-in loaded after that was
    // compiled from source, and a cache written under the changed hash was rejected at the next start,
    // compiled from source and written again at every run.
    const dir = join(ctx.user.home, 'cache-batch');
    const input = join(ctx.user.home, 'cache-batch.jsonl');
    writeFileSync(input, '"one"\n"two"\n"three"\n');
    const batch = () => runCli(['batch', input, '--base-url', ctx.base, '-m', 'echo'], { env: { ...ctx.user.env(), GATECHAT_CACHE_DIR: dir } });
    const first = await batch();
    expect(first.code, first.stderr).toBe(0);
    const written = cacheFiles(dir);
    // Every chunk the batch loaded, undici's included (loaded at its first request).
    // (As the kind a run that answers one prompt replaces: see the next test.)
    expect([...written.keys()].some((name) => /[\\/]undici-route-[\w-]{8}\.cjs\.exit\.v8$/.test(name))).toBe(true);
    const second = await batch();
    expect(second.code, second.stderr).toBe(0);
    // Lines come out as they finish: the same lines, in any order.
    const lines = (out: string) => out.split('\n').sort();
    expect(lines(second.stdout)).toEqual(lines(first.stdout));
    const after = cacheFiles(dir);
    expect([...after.keys()].sort()).toEqual([...written.keys()].sort());
    for (const [name, file] of after) expect(file.mtimeMs, name).toBe(written.get(name)!.mtimeMs);
  });

  it('a batch run first does not decide the caches of the chunks a one-shot shares with it', async () => {
    // A chunk's `.v8` cache, once accepted, is never written again. A batch that ran first after an install
    // wrote its own view of the main and one-shot chunks there (what a batch compiled, not a streamed
    // answer's decoding and output), and every later one-shot compiled the rest from source at each start.
    const dir = join(ctx.user.home, 'cache-batch-first');
    const input = join(ctx.user.home, 'cache-batch-first.jsonl');
    writeFileSync(input, '"one"\n');
    const batch = await runCli(['batch', input, '--base-url', ctx.base, '-m', 'echo'], { env: { ...ctx.user.env(), GATECHAT_CACHE_DIR: dir } });
    expect(batch.code, batch.stderr).toBe(0);
    const afterBatch = cacheFiles(dir);
    const oneShotChunk = /[\\/]one-shot-[\w-]{8}\.cjs\.v8$/;
    // The batch cached the one-shot chunk (it answers through it), but only as the kind a run that sends replaces.
    expect([...afterBatch.keys()].some((name) => /[\\/]one-shot-[\w-]{8}\.cjs\.exit\.v8$/.test(name))).toBe(true);
    expect([...afterBatch.keys()].some((name) => oneShotChunk.test(name))).toBe(false);
    const run = await oneShot(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(LOREM_20);
    expect([...cacheFiles(dir).keys()].some((name) => oneShotChunk.test(name))).toBe(true);
  });

  it('compiles each chunk from the text as read, not from a wrapped second copy of it', async () => {
    // Wrapping a chunk's source in the CommonJS function at run time made V8 flatten a second copy of
    // every chunk in the young generation (scavenges before the request): each chunk is its own wrapper.
    const home = ctx.user.home;
    const report = join(home, 'compiled.json');
    const preload = join(home, 'record-compiles.cjs');
    writeFileSync(
      preload,
      `const fs = require('node:fs'); const vm = require('node:vm'); const seen = {};
vm.Script = class extends vm.Script { constructor(source, options) { super(source, options);
  if (options && /[\\/]chunks[\\/]/.test(options.filename)) seen[options.filename] = source === fs.readFileSync(options.filename, 'utf8'); } };
process.on('exit', () => fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify(seen)));\n`,
    );
    const run = await runCli(['--base-url', ctx.base, '-m', 'lorem-20', '--no-save', 'as read'], {
      env: { ...ctx.user.env(), GATECHAT_CACHE_DIR: join(home, 'cache-as-read'), NODE_OPTIONS: `--require ${preload}` },
      stdin: '',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(LOREM_20);
    const compiled = JSON.parse(readFileSync(report, 'utf8')) as Record<string, boolean>;
    expect(Object.keys(compiled).map((file) => basename(file).replace(/-[\w-]{8}\.cjs$/, '')).sort()).toEqual(['main', 'one-shot', 'startup']);
    for (const [file, asRead] of Object.entries(compiled)) expect(asRead, file).toBe(true);
  });

  it('plain `node dist/cli.cjs` (Node\'s own loader, no cache) runs the same chunks and answers the same', async () => {
    const answer = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.cjs'), '--base-url', ctx.base, '-m', 'lorem-20', '--no-save', 'plain'], {
        env: { ...process.env, ...ctx.user.env() },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdin.end();
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stderr).toBe('');
    expect(answer.stdout).toMatch(LOREM_20);
  });

  it('a cache directory that cannot be created changes nothing a user sees', async () => {
    const blocker = join(ctx.user.home, 'not-a-directory');
    writeFileSync(blocker, 'a file where the cache directory would go\n');
    const run = await oneShot(join(blocker, 'cache'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(LOREM_20);
  });
});
