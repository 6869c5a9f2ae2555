// src/storage/: how gatechat writes its own files (SPEC §20 "Own files") and the lock helper. Real
// files, real links, real processes: temp files nobody can plant a link for, no link followed in an
// own file's place, records appended whole by many processes at once, locks that a SIGKILL never wedges.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendOwnRecord, OwnLogAppender, readOwnFile, tempNameFor, writeFileAtomic } from '../../src/storage/own-files.js';
import { lockFile } from '../../src/storage/file-lock.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { saveModelIds, cachedModelIds } from '../../src/session/models-cache.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';
import { repoRoot } from '../helpers/cli.js';

const posix = process.platform !== 'win32';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatechat-own-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A file a neighbour would like gatechat to overwrite. */
function victim(): string {
  const path = join(dir, 'victim.txt');
  writeFileSync(path, 'precious\n');
  return path;
}

describe('writeFileAtomic', () => {
  it('replaces a link planted at the target instead of writing through it; 0600 under any umask', () => {
    const target = join(dir, 'models-cache.json');
    const precious = victim();
    symlinkSync(precious, target);
    const umask = process.umask(0);
    try {
      writeFileAtomic(target, 'new\n');
    } finally {
      process.umask(umask);
    }
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    if (posix) expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['models-cache.json', 'victim.txt']);
  });

  it('temp names are beside the target, hidden and unpredictable (96 random bits), never the pid', () => {
    const target = join(dir, 'x.json');
    const names = new Set(Array.from({ length: 50 }, () => tempNameFor(target)));
    expect(names.size).toBe(50);
    for (const name of names) {
      expect(name.startsWith(join(dir, '.x.json.'))).toBe(true);
      expect(name).not.toContain(String(process.pid));
      expect(name).toMatch(/\.[\w-]{16}\.tmp$/);
    }
  });

  it('leaves no temp file behind when the rename fails', () => {
    const target = join(dir, 'taken');
    mkdirSync(join(target, 'inside'), { recursive: true });
    expect(() => writeFileAtomic(target, 'x')).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });
});

describe('a link planted at the temp names gatechat used to pick (<file>.<pid>.tmp)', () => {
  it('the models cache never writes through it', () => {
    const precious = victim();
    symlinkSync(precious, join(dir, `models-cache.json.${process.pid}.tmp`));
    saveModelIds('http://gw/v1', ['a', 'b'], dir);
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
    expect(cachedModelIds(dir)).toEqual(['a', 'b']);
  });

  it('the input history compaction never writes through it', () => {
    const file = join(dir, 'input-history.jsonl');
    writeFileSync(file, Array.from({ length: 30 }, (_, i) => `${JSON.stringify(`prompt ${i}`)}\n`).join(''));
    const precious = victim();
    symlinkSync(precious, `${file}.${process.pid}.tmp`);
    const history = openInputHistory(file, { limit: 10 });
    expect(history.entries).toHaveLength(10);
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(10);
  });

  it('the code cache never writes through it', async () => {
    // bin/code-cache.js in this process, over a one-line chunk: its save runs on this event.
    const chunks = join(dir, 'dist', 'chunks');
    mkdirSync(chunks, { recursive: true });
    const entry = join(chunks, 'main-TESTTEST.cjs');
    writeFileSync(entry, 'module.exports = 42;\n');
    const cacheDir = join(dir, 'cache');
    const cacheFile = join(cacheDir, 'code-cache', `${process.version}-${process.arch}`, 'main-TESTTEST', 'main-TESTTEST.cjs.v8');
    mkdirSync(join(cacheFile, '..'), { recursive: true });
    const precious = victim();
    symlinkSync(precious, `${cacheFile}.${process.pid}.tmp`);
    const saved = process.env.GATECHAT_CACHE_DIR;
    process.env.GATECHAT_CACHE_DIR = cacheDir;
    const umask = process.umask(0);
    try {
      const { runWithCodeCache } = (await import(join(repoRoot, 'bin', 'code-cache.js'))) as { runWithCodeCache(entry: string): void };
      runWithCodeCache(entry);
      process.emit('gatechat:before-v8-flags' as never);
    } finally {
      process.umask(umask);
      if (saved === undefined) delete process.env.GATECHAT_CACHE_DIR;
      else process.env.GATECHAT_CACHE_DIR = saved;
    }
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
    expect(statSync(cacheFile).size).toBeGreaterThan(0);
    if (posix) expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
  });
});

describe.runIf(posix)('no link followed in an own file\'s place', () => {
  it('reading or appending through a link is refused (ELOOP), the link target untouched', () => {
    const precious = victim();
    const file = join(dir, 'conv.jsonl');
    symlinkSync(precious, file);
    expect(() => readOwnFile(file)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(() => appendOwnRecord(file, '{"x":1}\n')).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
  });

  it('a FIFO in a file\'s place is refused without blocking; a directory is EISDIR', () => {
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(() => readOwnFile(fifo)).toThrow(expect.objectContaining({ code: 'ENOTREG' }));
    mkdirSync(join(dir, 'd.jsonl'));
    expect(() => appendOwnRecord(join(dir, 'd.jsonl'), 'x\n')).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });

  it('the input history planted as a link is neither read nor written, and says so once', () => {
    const precious = victim();
    const file = join(dir, 'input-history.jsonl');
    symlinkSync(precious, file);
    const warnings: string[] = [];
    const history = openInputHistory(file, { warn: (line) => warnings.push(line) });
    expect(history.entries).toEqual([]);
    history.append('a private prompt');
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/input history not kept: .*input-history\.jsonl: it is a symbolic link/);
  });
});

describe('OwnLogAppender: one descriptor for a batch\'s many ledger records', () => {
  it('creates dir and file 0600, starts a fresh line after a torn one another writer left, and sees others\' records', () => {
    const file = join(dir, 'data', 'usage.jsonl');
    const log = new OwnLogAppender(file, join(dir, 'data'));
    log.append('{"n":1}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Another process appends meanwhile, and one dies mid-record.
    appendOwnRecord(file, '{"n":2}\n');
    writeFileSync(file, '{"torn', { flag: 'a' });
    log.append('{"n":3}');
    log.close();
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"torn\n{"n":3}\n');
  });

  it('a torn record another writer left right after our own still gets a fresh line (the file is no longer where ours ended)', () => {
    const file = join(dir, 'usage.jsonl');
    const log = new OwnLogAppender(file, dir);
    log.append('{"n":1}');
    log.append('{"n":2}');
    writeFileSync(file, '{"torn', { flag: 'a' });
    log.append('{"n":3}');
    log.append('{"n":4}');
    log.close();
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"torn\n{"n":3}\n{"n":4}\n');
  });

  it('a file removed while held is created again: no record goes to a file nobody can read', () => {
    const file = join(dir, 'usage.jsonl');
    const log = new OwnLogAppender(file, dir);
    log.append('{"n":1}');
    rmSync(file);
    log.append('{"n":2}');
    log.close();
    expect(readFileSync(file, 'utf8')).toBe('{"n":2}\n');
  });

  it.runIf(posix)('a link planted in place of a removed file is refused (ELOOP), and the victim untouched', () => {
    const precious = victim();
    const file = join(dir, 'usage.jsonl');
    const log = new OwnLogAppender(file, dir);
    log.append('{"n":1}');
    rmSync(file);
    symlinkSync(precious, file);
    expect(() => log.append('{"n":2}')).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    log.close();
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
  });
});

describe('appendOwnRecord from many processes at once (conversations, the ledger)', () => {
  it.runIf(posix)('a log it creates is 0600 whatever the umask (0o277 would leave 0400, 000 0666)', () => {
    for (const umask of [0o277, 0o000]) {
      const file = join(dir, `log-${umask}.jsonl`);
      const before = process.umask(umask);
      try {
        appendOwnRecord(file, '"a"\n', { create: true });
      } finally {
        process.umask(before);
      }
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
  });

  it('8 processes × 40 records of up to 200 KB: every record whole, on its own line', async () => {
    // The module itself, bundled for plain node, run by 8 real processes on one file.
    const script = join(dir, 'append.mjs');
    await build({ entryPoints: [join(repoRoot, 'src/storage/own-files.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'own-files.mjs'), logLevel: 'silent' });
    writeFileSync(
      script,
      `import { appendOwnRecord } from './own-files.mjs';
const [file, who] = process.argv.slice(2);
for (let i = 0; i < 40; i++) {
  const pad = 'x'.repeat(((Number(who) * 7919 + i * 104729) % 200) * 1000);
  appendOwnRecord(file, JSON.stringify({ type: 'usage', who: Number(who), i, pad }) + '\\n', { create: true });
}
`,
    );
    const file = join(dir, 'usage.jsonl');
    await Promise.all(
      Array.from({ length: 8 }, (_, who) => new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [script, file, String(who)], { stdio: 'inherit' });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${who} exited ${code}`))));
      })),
    );
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(320);
    const seen = new Set(lines.map((line) => {
      const record = JSON.parse(line) as { who: number; i: number; pad: string };
      return `${record.who}:${record.i}`;
    }));
    expect(seen.size).toBe(320);
    if (posix) expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);
});

describe('lockFile', () => {
  it('a second holder waits, then is refused with one line naming the holder; release lets it in', () => {
    const target = join(dir, 'config.json');
    const lock = lockFile(target, { waitMs: 0, what: 'the config file' });
    expect(existsSync(`${target}.lock`)).toBe(true);
    if (posix) expect(statSync(`${target}.lock`).mode & 0o777).toBe(0o600);
    let refused: unknown;
    try {
      lockFile(target, { waitMs: 50, what: 'the config file' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(StorageError);
    expect((refused as StorageError).exitCode).toBe(2);
    expect((refused as Error).message).toBe(`the config file is in use by another gatechat (pid ${process.pid}); its lock is ${target}.lock`);
    lock.release();
    expect(existsSync(`${target}.lock`)).toBe(false);
    lockFile(target, { waitMs: 0, what: 'the config file' }).release();
  });

  it('a lock file is never seen empty: it appears with its owner in it (a SIGKILL between create and write left one nobody could take over for 10 s)', async () => {
    // Another process takes and releases the lock as fast as it can; this one reads the lock file meanwhile.
    await build({ entryPoints: [join(repoRoot, 'src/storage/file-lock.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'file-lock.mjs'), logLevel: 'silent' });
    const target = join(dir, 'out.jsonl');
    const done = join(dir, 'done');
    const stop = join(dir, 'stop');
    const script = join(dir, 'churn.mjs');
    // The churn goes on until this process has read the lock enough times (at least 3000 rounds): with a
    // fixed count, a loaded machine could run it all while this process waited for a core, and see nothing.
    writeFileSync(script, `import { existsSync, writeFileSync } from 'node:fs';
import { lockFile } from './file-lock.mjs';
for (let i = 0; i < 3000 || !existsSync(process.argv[4]); i++) lockFile(process.argv[2], { waitMs: 5000, what: 'it' }).release();
writeFileSync(process.argv[3], '');
`);
    const child = spawn(process.execPath, [script, target, done, stop], { stdio: 'inherit' });
    let seen = 0;
    let empty = 0;
    const deadline = Date.now() + 60_000;
    while (!existsSync(done) && Date.now() < deadline) {
      try {
        const text = readFileSync(`${target}.lock`, 'utf8');
        seen++;
        if (!text.includes('"nonce"')) empty++;
      } catch {
        // Between two holders.
      }
      if (seen === 1000) writeFileSync(stop, '');
    }
    if (!existsSync(stop)) writeFileSync(stop, '');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(done)).toBe(true);
    expect(seen).toBeGreaterThan(100);
    expect(empty).toBe(0);
  }, 90_000);

  it('a created file is never seen empty: it appears with its first record in it (a listing beside a saving run warned of an empty conversation)', async () => {
    // Another process creates files as fast as it can; this one lists the directory meanwhile.
    await build({ entryPoints: [join(repoRoot, 'src/storage/own-files.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'own-files.mjs'), logLevel: 'silent' });
    const files = join(dir, 'files');
    mkdirSync(files);
    const done = join(dir, 'done');
    const stop = join(dir, 'stop');
    const script = join(dir, 'create.mjs');
    // Creating goes on until this process has listed enough files while they were made (at least 3000):
    // with a fixed count, a loaded machine could make them all while this process waited for a core.
    writeFileSync(script, `import { existsSync, writeFileSync } from 'node:fs';
import { createOwnFile } from './own-files.mjs';
for (let i = 0; i < 3000 || !existsSync(process.argv[4]); i++) createOwnFile(process.argv[2] + '/c-' + i + '.jsonl', '{"record":' + i + '}\\n');
writeFileSync(process.argv[3], '');
`);
    const child = spawn(process.execPath, [script, files, done, stop], { stdio: 'inherit' });
    const whole = new Set<string>();
    let empty = 0;
    const deadline = Date.now() + 60_000;
    while (!existsSync(done) && Date.now() < deadline) {
      for (const name of readdirSync(files)) {
        if (!name.startsWith('c-') || whole.has(name)) continue;
        if (readFileSync(join(files, name), 'utf8').includes('"record"')) whole.add(name);
        else empty++;
      }
      if (whole.size >= 1000 && !existsSync(stop)) writeFileSync(stop, '');
    }
    if (!existsSync(stop)) writeFileSync(stop, '');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(done)).toBe(true);
    expect(whole.size).toBeGreaterThan(100);
    expect(empty).toBe(0);
  }, 90_000);

  it('a lock left by a process killed with SIGKILL is taken over', () => {
    const target = join(dir, 'out.jsonl');
    // A real process that takes the lock and is killed before it can release it.
    const dead = spawnSync(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { timeout: 1 });
    expect(dead.pid).toBeGreaterThan(0);
    writeFileSync(`${target}.lock`, JSON.stringify({ pid: dead.pid, host: hostname(), started: null, nonce: 'dead' }));
    const lock = lockFile(target, { waitMs: 0, what: 'the output' });
    expect(JSON.parse(readFileSync(`${target}.lock`, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('a lock whose owner has exited but was never reaped (a zombie) is taken over', async () => {
    if (process.platform !== 'linux') return;
    const target = join(dir, 'out.jsonl');
    // The shell starts a short sleep and then becomes a long one, which never waits for it: the short one exits and stays
    // a zombie, as a gatechat orphaned under a PID 1 that does not reap (some containers) does.
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
      await expect.poll(() => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0], { timeout: 5000 }).toBe('Z');
      writeFileSync(`${target}.lock`, JSON.stringify({ pid, host: hostname(), started: null, nonce: 'zombie' }));
      const lock = lockFile(target, { waitMs: 0, what: 'the output' });
      expect(JSON.parse(readFileSync(`${target}.lock`, 'utf8')).pid).toBe(process.pid);
      lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a pid reused by another program does not hold the lock (its start time differs)', () => {
    const target = join(dir, 'out.jsonl');
    writeFileSync(`${target}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), started: '1', nonce: 'old' }));
    const lock = lockFile(target, { waitMs: 0, what: 'the output' });
    expect(JSON.parse(readFileSync(`${target}.lock`, 'utf8')).nonce).not.toBe('old');
    lock.release();
  });

  it('release never removes a lock another process took meanwhile', () => {
    const target = join(dir, 'out.jsonl');
    const lock = lockFile(target, { waitMs: 0, what: 'the output' });
    const theirs = JSON.stringify({ pid: process.pid, host: 'elsewhere', started: null, nonce: 'theirs' });
    writeFileSync(`${target}.lock`, theirs);
    lock.release();
    expect(readFileSync(`${target}.lock`, 'utf8')).toBe(theirs);
  });
});
