// SPEC §20 "Own files" through the built binary: every file gatechat creates is 0600 (directories
// 0700) even under umask 000 — the V8 code cache and batch outputs included — and a link planted in
// a conversation file's place is refused in one line instead of being written through.
import { readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();
const posix = process.platform !== 'win32';

/** Runs the binary with umask 000, so only the modes gatechat asks for keep files private. */
const UMASK_000 = ['sh', '-c', 'umask 000 && exec "$@"', 'sh'];

function walk(root: string): string[] {
  return readdirSync(root, { withFileTypes: true, recursive: true }).map((e) => join(e.parentPath, e.name));
}

describe.runIf(posix)('file modes under umask 000', () => {
  it('the code cache, batch outputs, conversations, config and models cache: files 0600, directories 0700', async () => {
    const cacheDir = join(ctx.user.home, 'cache');
    const env = { ...ctx.user.env(), GATECHAT_CACHE_DIR: cacheDir };
    const options = { env, wrapper: UMASK_000 };
    expect((await runCli(['config', 'set', 'model', 'echo'], options)).code).toBe(0);
    const ask = await runCli(['--base-url', ctx.base, 'hello'], options);
    expect(ask.code, ask.stderr).toBe(0);
    expect((await runCli(['models', '--base-url', ctx.base], options)).code).toBe(0);
    const input = join(ctx.user.home, 'in.jsonl');
    writeFileSync(input, '"one"\n"two"\n');
    const output = join(ctx.user.home, 'out.jsonl');
    const batch = await runCli(['batch', input, '--output', output, '--base-url', ctx.base], options);
    expect(batch.code, batch.stderr).toBe(0);

    expect(statSync(output).mode & 0o777).toBe(0o600);
    const cacheFiles = walk(cacheDir).filter((p) => statSync(p).isFile());
    expect(cacheFiles.length).toBeGreaterThan(0);
    const owned = [...walk(cacheDir), ...walk(ctx.user.configDir), ...walk(ctx.user.dataDir)];
    expect(owned.filter((p) => p.endsWith('models-cache.json'))).toHaveLength(1);
    for (const path of owned) {
      const stat = statSync(path);
      expect(stat.mode & 0o777, path).toBe(stat.isDirectory() ? 0o700 : 0o600);
    }
  }, 60_000);
});

describe.runIf(posix)('a link planted in a conversation file\'s place', () => {
  it('--cid and -c refuse it in one line (exit 2) and never write through it', async () => {
    const first = await runCli(['--base-url', ctx.base, '-m', 'echo', 'first'], { env: ctx.user.env() });
    expect(first.code, first.stderr).toBe(0);
    const dir = join(ctx.user.dataDir, 'conversations');
    const [name] = readdirSync(dir);
    const file = join(dir, name!);
    const precious = join(ctx.user.home, 'precious.txt');
    writeFileSync(precious, 'precious\n');
    unlinkSync(file);
    symlinkSync(precious, file);
    const cid = name!.replace('.jsonl', '');
    const before = ctx.gateway.requests.length;
    const run = await runCli(['--base-url', ctx.base, '-m', 'echo', '--cid', cid, 'more'], { env: ctx.user.env() });
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toMatch(/symbolic link/);
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
    expect(ctx.gateway.requests.length).toBe(before);
  });
});
