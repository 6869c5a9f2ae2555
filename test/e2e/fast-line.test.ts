// The plain one-shot line read without commander (src/cli/fast-line.ts), through the built binary: such a
// line loads no commander code, and answers exactly as the same line read by commander does. A trailing
// `--` (nothing after it) means the same to commander and is a word the fast reader leaves to commander,
// so `[...line, '--']` is the same command line taken the other way.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser({ userPer: 'file' });

// Records whether a run compiled commander: its option store's name is kept verbatim in the bundle.
const HOOK = `
const fs = require('node:fs');
const Module = require('node:module');
const note = (source) => { if (/_optionValueSources/.test(source)) fs.appendFileSync(process.env.GATECHAT_TEST_COMMANDER_LOG, 'commander\\n'); };
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  const out = readFileSync.call(this, file, ...rest);
  if (typeof file === 'string' && file.endsWith('.cjs')) note(String(out));
  return out;
};
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) { note(content); return compile.call(this, content, filename); };
`;

let runs = 0;
async function run(args: string[], stdin = '') {
  const hook = join(ctx.user.home, 'commander-hook.cjs');
  if (!existsSync(hook)) writeFileSync(hook, HOOK);
  const log = join(ctx.user.home, `commander-${runs++}.log`);
  const result = await runCli(args, { env: { ...ctx.user.env(), NODE_OPTIONS: `--require=${hook}`, GATECHAT_TEST_COMMANDER_LOG: log }, stdin, timeoutMs: 15_000 });
  return { code: result.code, stdout: result.stdout, stderr: result.stderr, commander: existsSync(log) };
}

describe('a plain one-shot line, read without commander', () => {
  it('the benchmark line answers without loading commander; a line it leaves to commander does load it', async () => {
    const fast = await run(['--base-url', ctx.base, '-m', 'echo', '--no-save', 'bench'], 'piped');
    expect(fast.code, fast.stderr).toBe(0);
    expect(fast.stdout).toBe('piped\n\nbench\n');
    expect(fast.commander).toBe(false);
    const slow = await run(['--base-url', ctx.base, '-m', 'echo', '--no-save', 'bench', '--'], 'piped');
    expect(slow.code, slow.stderr).toBe(0);
    expect(slow.stdout).toBe('piped\n\nbench\n');
    expect(slow.commander).toBe(true);
  });

  const lines: [string, () => string[]][] = [
    ['every kind of option in the request (--dry-run)', () => ['--base-url', ctx.base, '-m', 'echo', '-m', 'lorem-20', '--no-stream', '--stream', '-s', '-a system', '--temperature=0.5', '-o', 'top_p=0.9', '-H', 'X-One: 1', '--header=X-Two: 2', '--dry-run', 'a', 'prompt', '--no-save']],
    ['--no-stream --json, prompt words around options', () => ['first', '--base-url', ctx.base, '--no-stream', '-m', 'echo', 'second', '--json', '--no-stdin', 'third', '--no-save']],
    ['a bad value: one line naming the option, exit 2', () => ['--base-url', ctx.base, '-m', 'echo', '--max-tokens', '0', 'hi']],
    ['a bad combination: exit 2', () => ['--base-url', ctx.base, '-m', 'echo', '--json', '--jsonl', 'hi']],
    ['--no-save with --title', () => ['--base-url', ctx.base, '-m', 'echo', '--no-save', '--title', 'T', 'hi']],
  ];
  for (const [name, line] of lines) {
    it(`${name}: as commander reads it`, async () => {
      const fast = await run(line(), 'stdin text');
      const slow = await run([...line(), '--'], 'stdin text');
      expect(fast.commander).toBe(false);
      expect(slow.commander).toBe(true);
      const strip = (text: string) => text.replace(/"(cid|id|created|latency_ms|duration_ms|ms)":\s*("[^"]*"|[\d.]+)/g, '"$1":…');
      expect({ code: fast.code, stdout: strip(fast.stdout), stderr: fast.stderr }).toEqual({ code: slow.code, stdout: strip(slow.stdout), stderr: slow.stderr });
    });
  }

  it('a saved exchange (no --no-save) is saved as before', async () => {
    const fast = await run(['--base-url', ctx.base, '-m', 'echo', '--json', 'remember me']);
    expect(fast.code, fast.stderr).toBe(0);
    expect(fast.commander).toBe(false);
    const id = (JSON.parse(fast.stdout) as { cid?: string }).cid;
    expect(id).toBeTruthy();
    expect(readFileSync(join(ctx.user.dataDir, 'conversations', `${id}.jsonl`), 'utf8')).toContain('remember me');
  });
});
