// Unsendable keys and header values (SPEC §20 "Secrets", issue 22 point 6): an HTTP header carries
// Latin-1 only, and never CR, LF or NUL. A key or header value that cannot be sent is refused where it is
// given — `config set`, `-H`, GATECHAT_API_KEY, `api-key-cmd` output, the config file — with exit 2 and one
// line that does not show it; nothing is sent, nothing retried. The built binary against the dev gateway.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const ctx = useGatewayAndUser();

const CORE = 'UNScanary';
// Cyrillic and CJK: outside Latin-1, so no header can carry them.
const KEY = `sk-${CORE}-\u043a\u043b\u044e\u0447`;
const TOKEN = `${CORE}-\u5bc6\u94a5`;

/** Refused before anything was sent: exit 2, one line, the value not in it, the gateway never asked. */
function expectRefused(result: CliResult, label: string, secret: string): void {
  expect(result.code, `${label}: ${result.stderr}`).toBe(2);
  // A key typed as an argument also gets the shell-history warning, before the refusal.
  const lines = result.stderr.split('\n').filter((line) => line !== '' && !/shell history/.test(line));
  expect(lines, label).toHaveLength(1);
  expect(lines[0], label).toMatch(/cannot be sent|outside Latin-1/);
  expect(result.stderr + result.stdout, label).not.toContain(CORE);
  expect(result.stderr, label).not.toContain(secret);
  expect(result.stderr, label).not.toMatch(/retry/);
  expect(ctx.gateway.requests, label).toHaveLength(0);
}

const configFile = () => join(ctx.user.configDir, 'config.json');

describe('a key or header value no header can carry', () => {
  it('config set api-key refuses it (stdin and argument) and stores nothing', async () => {
    const viaStdin = await runCli(['config', 'set', 'api-key'], { env: ctx.user.env(), stdin: `${KEY}\n` });
    expectRefused(viaStdin, 'stdin', KEY);
    const viaArg = await runCli(['config', 'set', 'api-key', KEY], { env: ctx.user.env() });
    expectRefused(viaArg, 'argument', KEY);
    expect(existsSync(configFile()) ? readFileSync(configFile(), 'utf8') : '').not.toContain(CORE);
  });

  it('a Latin-1 key is sendable and accepted (é is one byte in a header)', async () => {
    const latin1 = 'sk-caf\u00e9-latin1-0001';
    const set = await runCli(['config', 'set', 'api-key'], { env: ctx.user.env(), stdin: `${latin1}\n` });
    expect(set.code, set.stderr).toBe(0);
    const run = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: ctx.user.env() });
    expect(run.code, run.stderr).toBe(0);
    expect(ctx.gateway.requests[0]!.headers.authorization).toBe(`Bearer ${latin1}`);
  });

  it('GATECHAT_API_KEY: refused with exit 2, never sent, never retried', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: { ...ctx.user.env(), GATECHAT_API_KEY: KEY } });
    expectRefused(result, 'GATECHAT_API_KEY', KEY);
  });

  it('-H and config set headers: a value outside Latin-1 is refused, a secret one without showing it', async () => {
    for (const header of [`X-Team-Token: ${TOKEN}`, `X-Note: ${TOKEN}`]) {
      const flag = await runCli(['--base-url', ctx.base, '-m', 'echo', '-H', header, 'hi'], { env: ctx.user.env() });
      expectRefused(flag, `-H ${header}`, TOKEN);
      const set = await runCli(['config', 'set', 'headers', header], { env: ctx.user.env() });
      expectRefused(set, `config set headers ${header}`, TOKEN);
    }
    expect(existsSync(configFile()) ? readFileSync(configFile(), 'utf8') : '').not.toContain(CORE);
  });

  it('api-key-cmd output: refused with exit 2, never sent', async () => {
    // The key in a file the command prints, so the command line itself (which the error names) holds none of it.
    const keyFile = join(ctx.user.home, 'key.txt');
    writeFileSync(keyFile, `${KEY}\n`);
    const set = await runCli(['config', 'set', 'api-key-cmd', `cat '${keyFile}'`], { env: ctx.user.env() });
    expect(set.code, set.stderr).toBe(0);
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: ctx.user.env() });
    expectRefused(result, 'api-key-cmd', KEY);
    expect(result.stderr).toContain('api-key-cmd');
  });

  it('a hand-edited config file holding one: refused with exit 2, never sent', async () => {
    mkdirSync(ctx.user.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(configFile(), JSON.stringify({ 'api-key': KEY }), { mode: 0o600 });
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: ctx.user.env() });
    expectRefused(result, 'config file', KEY);
  });
});
