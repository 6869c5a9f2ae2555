// The published package is the bundle (SPEC §14): a fresh `npm pack` installs with no runtime
// dependencies, offline (an empty npm cache), into at most 10 MB, without npm's warning about install
// scripts (the packed manifest has none: scripts/pack.mjs), and its `gatechat demo` works.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { describeInTerminal, shellQuote, TmuxSession } from '../helpers/tmux.js';

const execFileAsync = promisify(execFile);

/** execFile with stdin closed at once, as `cmd < /dev/null` (gatechat reads a piped stdin to EOF). */
function run(file: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }) {
  const pending = execFileAsync(file, args, { ...options, timeout: 90_000 });
  pending.child.stdin?.end();
  return pending;
}
const work = mkdtempSync(join(tmpdir(), 'gatechat-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function diskUsage(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.blocks * 512;
  return readdirSync(path).reduce((sum, name) => sum + diskUsage(join(path, name)), stat.blocks * 512);
}

// npm's settings for the command it runs (`npx -p node@22 -c '…'` in CI sets npm_config_call and
// npm_config_package) would become the settings of every npm and npx this test starts: none are kept.
const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
// An npm with its own empty cache and HOME: nothing can come from a previous install.
const env = { ...inherited, HOME: work, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
let tarball = '';
/** The checkout's package.json before the pack: its prepack swaps in the published manifest for a while. */
let checkout = '';
beforeAll(async () => {
  checkout = readFileSync(join(repoRoot, 'package.json'), 'utf8');
  // Packed with its scripts, as a release is (prepack, postpack); dist/ was built by `npm test` before the
  // suite, so GATECHAT_PACK_PREBUILT keeps the prepack from rebuilding it under other tests.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work, repoRoot], { env: { ...env, GATECHAT_PACK_PREBUILT: '1' }, cwd: work });
  const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  tarball = join(work, filename);
}, 120_000);

describe('npm pack → npm install -g --offline', () => {
  it('installs alone, offline, in ≤ 10 MB, with no install-scripts warning, and gatechat demo answers', { timeout: 120_000 }, async () => {
    // The checkout's own manifest is back, byte for byte.
    expect(readFileSync(join(repoRoot, 'package.json'), 'utf8')).toBe(checkout);
    expect(existsSync(join(repoRoot, '.package.json.packing'))).toBe(false);


    const prefix = join(work, 'prefix');
    const install = await run('npm', ['install', '-g', '--prefix', prefix, '--offline', tarball], { env, cwd: work });
    // npm 11 warns about a tarball whose manifest has install scripts (a `prepare` counts): there is none.
    expect(install.stderr).not.toMatch(/install.scripts|allowScripts|allow-scripts/i);

    const installed = join(prefix, 'lib', 'node_modules', 'gatechat');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ gatechat: 'bin/gatechat.js' });
    expect(readdirSync(installed).sort()).not.toContain('node_modules');
    const bytes = diskUsage(prefix);
    expect(bytes).toBeGreaterThan(500 * 1024); // the bundle is really there
    expect(bytes).toBeLessThanOrEqual(10 * 1024 * 1024);

    const bin = join(prefix, 'bin', 'gatechat');
    const demo = await run(bin, ['demo', 'hello from the package'], { env: { PATH: process.env.PATH, HOME: work, GATECHAT_CONFIG_DIR: join(work, 'cfg'), GATECHAT_DATA_DIR: join(work, 'data') } });
    expect(demo.stdout).toBe('hello from the package\n');
    const version = await run(bin, ['--version'], { env: { PATH: process.env.PATH } });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  });
});

describeInTerminal('the README\'s npx command', () => {
  it('runs the tarball\'s demo from a terminal without waiting for a question nobody answers', { timeout: 120_000 }, async () => {
    // The line as the README gives it (Installing the package), with this build's tarball name.
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const line = readme.split('\n').find((l) => /^npx .*gatechat-[\w.-]+\.tgz demo/.test(l));
    expect(line, 'an npx line in the README').toBeDefined();
    const command = line!.replace(/\s+#.*$/, '').replace(/\.\/gatechat-[\w.-]+\.tgz/, `./${tarball.split('/').at(-1)}`);
    // A fresh npx cache (the tarball is not installed yet), offline; stdin and stdout a terminal.
    const session = TmuxSession.start(`sh -c ${shellQuote(`cd ${shellQuote(work)} && ${command}`)}`, {
      env: { ...Object.fromEntries(Object.keys(process.env).filter((name) => /^npm_/i.test(name)).map((name) => [name, undefined])), HOME: work, npm_config_cache: join(work, 'npx-cache'), npm_config_offline: 'true', npm_config_update_notifier: 'false', GATECHAT_CONFIG_DIR: join(work, 'cfg'), GATECHAT_DATA_DIR: join(work, 'data') },
    });
    try {
      expect(await session.waitForExit(90_000), session.screen()).toBe(0);
      expect(session.screen()).toMatch(/^\s*hello\s*$/m);
      expect(session.screen()).not.toContain('Ok to proceed');
    } finally {
      session.kill();
    }
  });
});
