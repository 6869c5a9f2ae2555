// Bad input everywhere (issue 3, item 8), through the built binary: each case gets one clear stderr
// line (no stack trace), its documented exit code (SPEC §4), nothing sent to the gateway, and no file
// written over. Covered elsewhere, not repeated here: a corrupt config file and an unknown --cid
// (test/e2e/commands.test.ts), a torn conversation file (commands.test.ts, session tests), --tools
// with invalid JSON or the wrong shape and a prompt over 8 MiB (test/e2e/one-shot.test.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const ctx = useGatewayAndUser();

/** Exactly one stderr line, in gatechat's voice, no stack frames; returns it. */
function oneLine(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gatechat: /);
  expect(result.stderr).not.toMatch(/^\s{4}at /m);
  expect(result.stderr).not.toMatch(/internal error|please report/);
  return lines[0]!;
}

const configFile = () => join(ctx.user.configDir, 'config.json');

let validConfig: Buffer | undefined;

/**
 * A valid config written through the binary (once; later tests get the same bytes back, which saves
 * CI ~80 runs of the binary), so there is a file whose bytes must survive.
 */
async function writeConfig(): Promise<Buffer> {
  if (validConfig) {
    mkdirSync(ctx.user.configDir, { recursive: true });
    writeFileSync(configFile(), validConfig, { mode: 0o600 });
    return validConfig;
  }
  for (const [key, value] of [
    ['base-url', ctx.base],
    ['model', 'echo'],
  ]) {
    const set = await runCli(['config', 'set', key!, value!], { env: ctx.user.env() });
    expect(set.code, set.stderr).toBe(0);
  }
  const set = await runCli(['config', 'set', '--profile', 'work', 'model', 'lorem-3'], { env: ctx.user.env() });
  expect(set.code, set.stderr).toBe(0);
  validConfig = readFileSync(configFile());
  return validConfig;
}

describe('profiles', () => {
  it('-p naming a missing profile: exit 2, one line naming it, nothing sent, config untouched', async () => {
    const before = await writeConfig();
    for (const run of [
      () => runCli(['-p', 'nope', 'hi'], { env: ctx.user.env() }),
      () => runCli(['--profile', 'nope', '--base-url', ctx.base, '-m', 'echo', 'hi'], { env: ctx.user.env() }),
      () => runCli(['hi'], { env: { ...ctx.user.env(), GATECHAT_PROFILE: 'nope' } }),
    ]) {
      const result = await run();
      expect(result.code).toBe(2);
      expect(oneLine(result)).toContain('nope');
      expect(result.stdout).toBe('');
    }
    expect(ctx.gateway.requests).toHaveLength(0);
    expect(readFileSync(configFile()).equals(before)).toBe(true);
    // the profile that exists still works
    const ok = await runCli(['-p', 'work', '--no-save', 'hi'], { env: ctx.user.env() });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim().split(/\s+/)).toHaveLength(3);
  });
});

describe('a data dir that cannot be written', () => {
  // Tests run as root, and chmod does not stop root: a regular file where the directory should be
  // (or above it) is the failure every user can reproduce.
  for (const layout of ['the data dir is a file', 'a parent of the data dir is a file'] as const) {
    it(`${layout}: a saving one-shot fails with one line, exit 2, before anything is sent; --no-save works`, async () => {
      mkdirSync(ctx.user.home, { recursive: true });
      const blocker = join(ctx.user.home, 'blocker');
      writeFileSync(blocker, 'not a directory\n');
      const dataDir = layout === 'the data dir is a file' ? blocker : join(blocker, 'gatechat');
      const env = { ...ctx.user.env(), GATECHAT_DATA_DIR: dataDir };

      for (const args of [['hi'], ['--json', 'hi'], ['--api', 'messages', '--no-stream', 'hi']]) {
        const result = await runCli(['--base-url', ctx.base, '-m', 'echo', ...args], { env });
        expect(result.code, result.stderr).toBe(2);
        const line = oneLine(result);
        expect(line).toContain(blocker);
        expect(line).toMatch(/--no-save/);
        expect(result.stdout).toBe('');
      }
      expect(ctx.gateway.requests).toHaveLength(0);

      // -c reads the store: same clear error, nothing sent
      const cont = await runCli(['--base-url', ctx.base, '-m', 'echo', '-c', 'again'], { env });
      expect(cont.code).toBe(2);
      oneLine(cont);
      const history = await runCli(['history', 'list'], { env });
      expect(history.code).toBe(2);
      oneLine(history);
      expect(ctx.gateway.requests).toHaveLength(0);
      expect(readFileSync(blocker, 'utf8')).toBe('not a directory\n');

      const unsaved = await runCli(['--base-url', ctx.base, '-m', 'echo', '--no-save', 'hi'], { env });
      expect(unsaved.code, unsaved.stderr).toBe(0);
      expect(unsaved.stdout).toBe('hi\n');
      // The answer is not saved; only the usage ledger, which --no-save keeps, says once that it cannot be written.
      expect(unsaved.stderr).toMatch(/^(?:gatechat: warning: this request is not in the usage ledger: [^\n]*\n)?$/);
      expect(ctx.gateway.requests).toHaveLength(1);
      // save: false in the config is the same as --no-save
      expect((await runCli(['config', 'set', 'save', 'false'], { env })).code).toBe(0);
      const configured = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env });
      expect(configured.code, configured.stderr).toBe(0);
      expect(readFileSync(blocker, 'utf8')).toBe('not a directory\n');
    });
  }
});

describe('stdin that is not UTF-8', () => {
  const inputs: Record<string, Buffer> = {
    'BOM-like bytes and a NUL (0xff 0xfe 0x00 …)': Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x00, 0x42, 0x0a]),
    'valid text with a stray byte at the end': Buffer.concat([Buffer.from('summarize this, please\n'), Buffer.from([0xc3])]),
    'an overlong encoding of "/"': Buffer.from([0x61, 0xc0, 0xaf, 0x62]),
    'a lone UTF-16 surrogate (CESU-8)': Buffer.from([0x61, 0xed, 0xa0, 0x80, 0x62]),
  };
  for (const [label, bytes] of Object.entries(inputs)) {
    it(`${label}: exit 2, one line, nothing sent, nothing saved`, async () => {
      for (const args of [[], ['explain']]) {
        const result = await runCli(['--base-url', ctx.base, '-m', 'echo', ...args], { env: ctx.user.env(), stdin: bytes });
        expect(result.code, result.stderr).toBe(2);
        expect(oneLine(result)).toMatch(/UTF-8/);
        expect(result.stdout).toBe('');
      }
      expect(ctx.gateway.requests).toHaveLength(0);
      expect(existsSync(ctx.user.dataDir)).toBe(false);
    });
  }

  it('--no-stdin skips even undecodable input', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '--no-stdin', '--no-save', 'fine'], {
      env: ctx.user.env(),
      stdin: Buffer.from([0xff, 0xfe, 0x00]),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('fine\n');
  });
});

describe('history of an id that does not exist', () => {
  it('show and rm: exit 2, one line, no file touched', async () => {
    const saved = await runCli(['--base-url', ctx.base, '-m', 'echo', '--json', 'keep me'], { env: ctx.user.env() });
    expect(saved.code, saved.stderr).toBe(0);
    const cid = JSON.parse(saved.stdout).cid as string;
    const file = join(ctx.user.dataDir, 'conversations', `${cid}.jsonl`);
    const before = readFileSync(file);

    for (const args of [
      ['history', 'show', '20200101-000000-dead'],
      ['history', 'show', '20200101-000000-dead', '--json'],
      ['history', 'show', '../../etc/passwd'],
      ['history', 'rm', '20200101-000000-dead'],
    ]) {
      const result = await runCli(args, { env: ctx.user.env() });
      expect(result.code, args.join(' ')).toBe(2);
      oneLine(result);
      expect(result.stdout).toBe('');
    }
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('models behind something that answers HTML', () => {
  it('a 200 HTML page and a 502 HTML page: one line, no markup', async () => {
    const page =
      '<!DOCTYPE html>\n<html><head><title>Sign in - Corp Proxy</title><style>body{margin:0}</style></head>\n' +
      '<body><h1>Please sign in</h1><script>window.location="/login"</script></body></html>\n';
    let seen = 0;
    const server: Server = createServer((req, res) => {
      seen++;
      res.writeHead(req.url?.startsWith('/down/') ? 502 : 200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/v1', '/down/v1']) {
        for (const extra of [[], ['--json']]) {
          const result = await runCli(['models', '--base-url', `${origin}${path}`, '--retries', '0', ...extra], { env: ctx.user.env() });
          expect(result.code, result.stderr).toBe(6);
          const line = oneLine(result);
          expect(line).toMatch(/HTML/);
          expect(line).not.toMatch(/<|>|DOCTYPE|script|window\.location/i);
          expect(result.stdout).toBe('');
        }
      }
      expect(seen).toBe(4);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('config set with a bad value', () => {
  const bad: Record<string, string[]> = {
    temperature: ['warm', '-1', 'NaN', 'Infinity', ''],
    'max-tokens': ['0', '-5', '1.5', 'lots'],
    api: ['completions', ''],
    auth: ['basic', 'token'],
    stream: ['maybe', '2'],
    timeout: ['0', '-1', 'soon', '99999999999'],
    'connect-timeout': ['0', 'soon'],
    retries: ['-1', 'many', '1.5'],
    'base-url': ['not a url', 'ftp://example.com/v1', ''],
    'max-tokens-field': ['tokens', 'max-tokens'],
    save: ['sometimes', ''],
    headers: ['NoColon', ': no name', 'Bad Name: x'],
    model: [''],
  };
  // One test per key: ~40 runs of the binary in a single test outlast its time limit on a loaded machine.
  for (const profile of [[], ['--profile', 'work']]) {
    for (const [key, values] of Object.entries(bad)) {
      it(`${key}${profile.length ? ' in a profile' : ''}: exit 2, one line naming the key, the file byte-identical`, async () => {
        const before = await writeConfig();
        for (const value of values) {
          const result = await runCli(['config', 'set', ...profile, key, value], { env: ctx.user.env() });
          expect(result.code, `${key} ${JSON.stringify(value)}: ${result.stderr}`).toBe(2);
          expect(oneLine(result), `${key} ${JSON.stringify(value)}`).toContain(key);
          expect(result.stdout).toBe('');
        }
        expect(readFileSync(configFile()).equals(before)).toBe(true);
        expect(ctx.gateway.requests).toHaveLength(0);
      });
    }
  }
});
