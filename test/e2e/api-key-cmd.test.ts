// api-key-cmd (SPEC §14): a shell command whose trimmed stdout is the key, run by the built binary
// only when a request needs the key. Real shells, real processes, the dev gateway on loopback.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { isRunning } from '../helpers/processes.js';
import { runCli } from '../helpers/cli.js';
import { runApiKeyCommand } from '../../src/config/api-key-cmd.js';
import { GatechatError } from '../../src/exit-codes.js';

const ctx = useGatewayAndUser();

/** Sets the user's api-key-cmd (and optionally a stored api-key) through the CLI. */
async function configure(command: string, storedKey?: string): Promise<void> {
  const set = await runCli(['config', 'set', 'api-key-cmd', command], { env: ctx.user.env() });
  expect(set.code, set.stderr).toBe(0);
  if (storedKey !== undefined) {
    const key = await runCli(['config', 'set', 'api-key'], { env: ctx.user.env(), stdin: `${storedKey}\n` });
    expect(key.code, key.stderr).toBe(0);
  }
}

const sentKeys = () => ctx.gateway.requests.map((r) => r.headers.authorization);

describe('api-key-cmd', () => {
  it('its trimmed output is the key; it beats a stored api-key; GATECHAT_API_KEY beats it', async () => {
    await configure(`printf '  sk-from-%s\\n\\n' command`, 'sk-stored-key-0001');
    const viaCmd = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: ctx.user.env() });
    expect(viaCmd.code, viaCmd.stderr).toBe(0);
    expect(viaCmd.stdout).toBe('hi\n');
    const viaEnv = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: { ...ctx.user.env(), GATECHAT_API_KEY: 'sk-env-key-0002' } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(sentKeys()).toEqual(['Bearer sk-from-command', 'Bearer sk-env-key-0002']);
    // `gatechat models` needs the key too.
    const models = await runCli(['models', '--base-url', ctx.base], { env: ctx.user.env() });
    expect(models.code, models.stderr).toBe(0);
    expect(sentKeys()[2]).toBe('Bearer sk-from-command');
  });

  it('runs only when a request needs the key: not for config, history, --help, or a request refused before sending', async () => {
    const marker = join(ctx.user.home, 'ran');
    await configure(`touch '${marker}'; echo sk-marker-key-0003`);
    for (const args of [['config', 'list'], ['config', 'get', 'api-key-cmd'], ['history', 'list'], ['--help'], ['--base-url', ctx.base, 'no model given']]) {
      await runCli(args, { env: ctx.user.env() });
      expect(existsSync(marker), args.join(' ')).toBe(false);
    }
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'now'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('config list and config get show the command, never its output', async () => {
    const command = `printf '%s-%s' sk OUTPUT-canary-9`;
    await configure(command);
    for (const args of [['config', 'list'], ['config', 'list', '--json'], ['config', 'get', 'api-key-cmd']]) {
      const result = await runCli(args, { env: ctx.user.env() });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('OUTPUT-canary-9'); // the command text itself
      expect(result.stdout).not.toContain('sk-OUTPUT-canary-9');
    }
  });

  it('failure or empty output is exit 3 naming the command, never printing its output, nothing sent', async () => {
    const cases = [
      { command: `printf '%s-%s' sk LEAKED-out; printf '%s-%s' sk LEAKED-err >&2; exit 4`, what: /failed with exit status 4/ },
      { command: `printf '   \\n'`, what: /printed nothing/ },
      { command: `printf 'sk-%s\\nsecond line\\n' LEAKED-two`, what: /more than one line/ },
      { command: `no-such-password-manager-xyz show gateway`, what: /failed with exit status 127/ },
    ];
    for (const c of cases) {
      await configure(c.command);
      const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-v', 'hi'], { env: ctx.user.env() });
      expect(result.code, result.stderr).toBe(3);
      const lines = result.stderr.trim().split('\n');
      expect(lines[0]).toContain(`api-key-cmd ${JSON.stringify(c.command)}`);
      expect(lines[0]).toMatch(c.what);
      expect(result.stderr).not.toContain('sk-LEAKED');
      expect(result.stdout).toBe('');
    }
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});

describe('runApiKeyCommand limits', () => {
  it('a command that hangs is stopped, with its children, at the time limit (exit 3)', async () => {
    const pidFile = join(ctx.user.home, 'child.pid');
    const started = Date.now();
    let error: unknown;
    try {
      await runApiKeyCommand(`sleep 30 & echo $! > '${pidFile}'; wait`, 300);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatechatError);
    expect((error as GatechatError).exitCode).toBe(3);
    expect((error as Error).message).toMatch(/did not finish within 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The background sleep belonged to the command's process group: it is gone too.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => isRunning(pid), { timeout: 5000 }).toBe(false);
  });
});

describe('runApiKeyCommand at its limit (SPEC §20)', () => {
  it('stops every process the command started, one that left its process group and session included', async () => {
    const pids = join(ctx.user.home, 'pids');
    // A child in the background, and a grandchild that double-forks into its own session (as a daemon
    // does): neither is in the command's process group any more, or a child of its shell.
    const command = `sleep 31 & echo $! >> '${pids}'; ( setsid sleep 32 & echo $! >> '${pids}' ); sleep 33`;
    await expect(runApiKeyCommand(command, 500)).rejects.toThrow(/did not finish within 0\.5 s/);
    const started = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(started).toHaveLength(2);
    for (const pid of started) await expect.poll(() => isRunning(pid), { timeout: 5000 }).toBe(false);
  });
});

describe('api-key-cmd in compare mode', () => {
  it('runs once for the whole run, however many models are compared', async () => {
    const counter = join(ctx.user.home, 'runs');
    await configure(`echo run >> '${counter}'; echo sk-compare-key-0004`);
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-m', 'lorem-3', 'compare me'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(sentKeys()).toEqual(['Bearer sk-compare-key-0004', 'Bearer sk-compare-key-0004']);
    expect(readFileSync(counter, 'utf8')).toBe('run\n');
  });
});
