// Storage faults are one clear line and exit 2 (SPEC §4, §6), never "internal error": a full disk
// (ENOSPC, a small tmpfs), a read-only file system (EROFS), no permission (EACCES, the binary run as
// nobody when the suite runs as root), a directory in a file's place (EISDIR), and a short write
// (RLIMIT_FSIZE through prlimit: no mount needed). The built binary against the dev gateway.
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli, type CliOptions, type CliResult } from '../helpers/cli.js';
import { mountTmpfs, unprivilegedUser, type Tmpfs } from '../helpers/tmpfs.js';

const ctx = useGatewayAndUser();

let mounted: Tmpfs | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
});

/** A tmpfs for this test, or the test skipped with the reason. */
function tmpfs(test: TestContext, sizeKiB: number): Tmpfs {
  const fs = mountTmpfs(sizeKiB);
  if ('skip' in fs) test.skip(fs.skip);
  mounted = fs as Tmpfs;
  return mounted;
}

/** Where a user's config and data live: the test's home, or `root` (a tmpfs). */
function userEnv(root = ctx.user.home): Record<string, string> {
  return { ...ctx.user.env(), GATECHAT_CONFIG_DIR: join(root, 'config'), GATECHAT_DATA_DIR: join(root, 'data') };
}

/** A one-shot run; `-m echo` unless `args` name the model. */
function ask(args: string[], env: Record<string, string>, options: CliOptions = {}) {
  return runCli(['--base-url', ctx.base, ...(args.includes('-m') ? [] : ['-m', 'echo']), ...args], { env, ...options });
}

const completions = () => ctx.gateway.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

/** The one saved conversation under `env`'s data dir. */
function onlyConversation(env: Record<string, string>): string {
  const dir = join(env.GATECHAT_DATA_DIR!, 'conversations');
  const [name] = readdirSync(dir);
  return join(dir, name!);
}

/** Exit 2 and exactly one stderr line that names `path` and `cause`; never an internal error. */
function expectOneLine(run: CliResult, path: string, cause: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr.trimEnd().split('\n'), run.stderr).toHaveLength(1);
  expect(run.stderr).toContain(path);
  expect(run.stderr).toMatch(cause);
  expect(run.stderr).not.toMatch(/internal error/);
}

/** Length of the user record the next prompt adds (the turn id and time stamp have fixed widths). */
function userRecordBytes(prompt: string): number {
  return `${JSON.stringify({ type: 'user', turn: 'x'.repeat(8), ts: new Date(0).toISOString(), content: prompt })}\n`.length;
}

/** Pads `file` with a line of blanks (skipped when read) to exactly `size` bytes. */
function padTo(file: string, size: number): void {
  const now = statSync(file).size;
  if (size - now < 2) throw new Error(`cannot pad ${file} from ${now} to ${size}`);
  appendFileSync(file, `${' '.repeat(size - now - 1)}\n`);
}

describe('a full disk (ENOSPC)', () => {
  it('-c: the answer already printed stays printed; one line says the disk is full and where; exit 2', async (test) => {
    const fs = tmpfs(test, 256);
    const env = userEnv(fs.dir);
    expect((await ask(['first question'], env)).code).toBe(0);
    const file = onlyConversation(env);
    // The prompt's record fits in the file's last page, the answer's does not; then the disk is full.
    const prompt = 'what is on the full disk?';
    padTo(file, Math.ceil(statSync(file).size / 4096) * 4096 + 4096 - userRecordBytes(prompt) - 10);
    fs.fill(0);
    const run = await ask(['-c', prompt], env);
    expect(run.stdout).toBe(`${prompt}\n`);
    expectOneLine(run, file, /the disk is full \(ENOSPC\)/);
  });

  it('-c: a prompt that cannot be saved is not sent', async (test) => {
    const fs = tmpfs(test, 256);
    const env = userEnv(fs.dir);
    expect((await ask(['first question'], env)).code).toBe(0);
    const file = onlyConversation(env);
    padTo(file, Math.ceil(statSync(file).size / 4096) * 4096);
    fs.fill(0);
    const before = completions();
    const run = await ask(['-c', 'never sent'], env);
    expectOneLine(run, file, /the disk is full \(ENOSPC\)/);
    expect(completions()).toBe(before);
    expect(run.stdout).toBe('');
  });

  it('a long piped answer saved in parts as it streams: printed whole, then the error', async (test) => {
    const fs = tmpfs(test, 1024);
    const env = userEnv(fs.dir);
    const whole = await ask(['-m', 'lorem-100000', '--max-tokens', '100000', '--no-save', 'go'], env);
    expect(whole.code, whole.stderr).toBe(0);
    // Longer than two of the 256 KiB parts a piped answer is saved in.
    expect(whole.stdout.length).toBeGreaterThan(520 * 1024);
    // Room for the header, the prompt and one 256 KiB part, not for the second.
    fs.fill(400 * 1024);
    const run = await ask(['-m', 'lorem-100000', '--max-tokens', '100000', 'go'], env);
    expect(run.stdout).toBe(whole.stdout);
    expectOneLine(run, join(env.GATECHAT_DATA_DIR!, 'conversations'), /the disk is full \(ENOSPC\)/);
  });

  it('config set: one line, exit 2, the file as it was', async (test) => {
    const fs = tmpfs(test, 256);
    const env = userEnv(fs.dir);
    expect((await runCli(['config', 'set', 'model', 'echo'], { env })).code).toBe(0);
    const path = join(env.GATECHAT_CONFIG_DIR!, 'config.json');
    const before = readFileSync(path, 'utf8');
    fs.fill(0);
    const run = await runCli(['config', 'set', 'temperature', '0.5'], { env });
    expectOneLine(run, path, /the disk is full \(ENOSPC\)/);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('batch --output: one line, exit 2', async (test) => {
    const fs = tmpfs(test, 256);
    const env = userEnv(ctx.user.home);
    const input = join(ctx.user.home, 'in.jsonl');
    writeFileSync(input, '"one"\n"two"\n');
    const output = join(fs.dir, 'out.jsonl');
    // One page: the output's lock takes it, the first answer line finds the disk full.
    fs.fill(4096);
    const run = await runCli(['batch', input, '--output', output, '-m', 'echo', '--concurrency', '1', '--base-url', ctx.base], { env });
    expectOneLine(run, output, /the disk is full \(ENOSPC\)/);
    expect(existsSync(`${output}.lock`)).toBe(false);
  });
});

describe('a read-only file system (EROFS)', () => {
  it('-c, history rm, config set and batch --output: one line each, exit 2, nothing sent', async (test) => {
    const fs = tmpfs(test, 256);
    const env = userEnv(fs.dir);
    expect((await ask(['first question'], env)).code).toBe(0);
    expect((await runCli(['config', 'set', 'model', 'echo'], { env })).code).toBe(0);
    const output = join(fs.dir, 'out.jsonl');
    writeFileSync(output, '');
    const input = join(ctx.user.home, 'in.jsonl');
    writeFileSync(input, '"one"\n');
    const file = onlyConversation(env);
    fs.remountReadOnly();
    const before = completions();

    expectOneLine(await ask(['-c', 'more'], env), file, /read-only \(EROFS\)/);
    const cid = file.split('/').at(-1)!.replace('.jsonl', '');
    expectOneLine(await runCli(['history', 'rm', cid], { env }), file, /read-only \(EROFS\)/);
    expectOneLine(await runCli(['config', 'set', 'model', 'other'], { env }), join(env.GATECHAT_CONFIG_DIR!, 'config.json'), /read-only \(EROFS\)/);
    expectOneLine(await runCli(['batch', input, '--output', output, '-m', 'echo', '--base-url', ctx.base], { env }), output, /read-only \(EROFS\)/);
    expect(completions()).toBe(before);
  });
});

describe('permission denied (EACCES)', () => {
  it('-c, history rm, config set and batch --output: one line each, exit 2, nothing sent', async (test) => {
    const as = unprivilegedUser();
    if ('skip' in as) return test.skip(as.skip);
    const env = userEnv();
    expect((await ask(['first question'], env)).code).toBe(0);
    expect((await runCli(['config', 'set', 'model', 'echo'], { env })).code).toBe(0);
    const file = onlyConversation(env);
    const input = join(ctx.user.home, 'in.jsonl');
    writeFileSync(input, '"one"\n');
    const outDir = join(ctx.user.home, 'out');
    mkdirSync(outDir);
    const output = join(outDir, 'out.jsonl');
    writeFileSync(output, '');
    // Readable, not writable: by another user (nobody, when the suite runs as root) or by anyone.
    chmodSync(ctx.user.home, 0o755);
    for (const dir of [env.GATECHAT_DATA_DIR!, join(env.GATECHAT_DATA_DIR!, 'conversations'), env.GATECHAT_CONFIG_DIR!, outDir]) chmodSync(dir, 0o555);
    for (const f of [file, join(env.GATECHAT_CONFIG_DIR!, 'config.json'), output]) chmodSync(f, 0o444);
    const before = completions();

    expectOneLine(await ask(['-c', 'more'], env, as), file, /permission denied \(EACCES\)/);
    const cid = file.split('/').at(-1)!.replace('.jsonl', '');
    expectOneLine(await runCli(['history', 'rm', cid], { env, ...as }), file, /permission denied \(EACCES\)/);
    expectOneLine(await runCli(['config', 'set', 'model', 'other'], { env, ...as }), join(env.GATECHAT_CONFIG_DIR!, 'config.json'), /permission denied \(EACCES\)/);
    expectOneLine(await runCli(['batch', input, '--output', output, '-m', 'echo', '--base-url', ctx.base], { env, ...as }), output, /permission denied \(EACCES\)/);
    expect(completions()).toBe(before);
  });
});

describe('a directory in place of a file (EISDIR)', () => {
  it('--cid, history rm, config set and batch --output: one line each, exit 2', async () => {
    const env = userEnv();
    expect((await ask(['first question'], env)).code).toBe(0);
    const cid = '20200101-000000-d1d1';
    const dir = join(env.GATECHAT_DATA_DIR!, 'conversations', `${cid}.jsonl`);
    mkdirSync(dir);
    expectOneLine(await ask(['--cid', cid, 'more'], env), dir, /directory/);
    expectOneLine(await runCli(['history', 'rm', cid], { env }), dir, /directory \(EISDIR\)/);
    const input = join(ctx.user.home, 'in.jsonl');
    writeFileSync(input, '"one"\n');
    const output = join(ctx.user.home, 'out.jsonl');
    mkdirSync(output);
    expectOneLine(await runCli(['batch', input, '--output', output, '-m', 'echo', '--base-url', ctx.base], { env }), output, /regular file|directory/);
    const config = join(env.GATECHAT_CONFIG_DIR!, 'config.json');
    mkdirSync(config, { recursive: true });
    expectOneLine(await runCli(['config', 'set', 'model', 'x'], { env }), config, /EISDIR/);
  });
});

describe('a short write', () => {
  it('a final record written short is an error naming the file (RLIMIT_FSIZE: no mount needed)', async (test) => {
    try {
      execFileSync('prlimit', ['--version'], { stdio: 'pipe' });
    } catch {
      test.skip('prlimit (util-linux) is not installed');
    }
    const env = userEnv();
    expect((await ask(['first question'], env)).code).toBe(0);
    const file = onlyConversation(env);
    const prompt = 'a record that will not fit';
    // The process may write the file up to the prompt's record and 10 bytes more: the answer's is torn.
    const limit = statSync(file).size + userRecordBytes(prompt) + 10;
    const run = await ask(['-c', prompt], env, { wrapper: ['prlimit', `--fsize=${limit}`, '--'] });
    expect(run.stdout).toBe(`${prompt}\n`);
    expectOneLine(run, file, /\(EFBIG\)/);
    expect(statSync(file).size).toBe(limit);
  });
});
