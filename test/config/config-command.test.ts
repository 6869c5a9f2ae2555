import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runConfigCommand, type ConfigAction, type ConfigCommandOptions } from '../../src/cli/commands/config.js';
import { GatechatError, UsageError } from '../../src/exit-codes.js';

const KEY = 'sk-live-abcdefghijklmnopqrstuvwx9876';
let root: string;
let dir: string;
const saved = { ...process.env };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-cfgcmd-'));
  dir = join(root, 'cfg');
  process.env.GATECHAT_CONFIG_DIR = dir;
  for (const name of ['GATECHAT_BASE_URL', 'GATECHAT_API_KEY', 'GATECHAT_MODEL', 'GATECHAT_PROFILE']) delete process.env[name];
});
afterEach(() => {
  process.env = { ...saved };
  rmSync(root, { recursive: true, force: true });
});

function sink() {
  let text = '';
  return { stream: { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream, text: () => text };
}

async function run(action: ConfigAction, args: string[], opts: ConfigCommandOptions = {}, stdin?: NodeJS.ReadStream, stdoutIsTTY = false) {
  const out = sink();
  if (stdoutIsTTY) Object.assign(out.stream, { isTTY: true });
  const err = sink();
  const input = stdin ?? (Object.assign(Readable.from([]), { isTTY: true, setRawMode: () => {} }) as unknown as NodeJS.ReadStream);
  const code = await runConfigCommand(action, args, opts, { stdin: input, stdout: out.stream, stderr: err.stream });
  return { code, out: out.text(), err: err.text() };
}

const pipedStdin = (text: string) => Readable.from([Buffer.from(text)]) as unknown as NodeJS.ReadStream;
const file = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

describe('gatechat config', () => {
  it('path prints the file path without creating it', async () => {
    expect(await run('path', [])).toEqual({ code: 0, out: `${join(dir, 'config.json')}\n`, err: '' });
  });

  it('set validates with the key parsers and stores typed values', async () => {
    expect((await run('set', ['base-url', 'http://localhost:8787'])).code).toBe(0);
    await run('set', ['temperature', '0.5']);
    await run('set', ['stream', 'off']);
    await run('set', ['max-tokens', '256'], { profile: 'work' });
    expect(file()).toEqual({ 'base-url': 'http://localhost:8787/v1', temperature: 0.5, stream: false, profiles: { work: { 'max-tokens': 256 } } });
    await expect(run('set', ['temperature', 'hot'])).rejects.toThrow('temperature: expected a number ≥ 0, got "hot"');
    await expect(run('set', ['max-tokens', '0'])).rejects.toThrow(/^max-tokens: /);
    await expect(run('set', ['model'])).rejects.toThrow('config set model: missing value');
    await expect(run('set', ['model', 'a', 'b'])).rejects.toThrow(UsageError);
  });

  it('unknown keys are usage errors listing the valid keys', async () => {
    for (const action of ['set', 'get', 'unset'] as const) {
      const error = await run(action, ['colour', 'x']).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as UsageError).message).toContain('valid keys: base-url, api-key, model');
    }
  });

  it('headers: set adds one (case-insensitive replace), unset removes one or all', async () => {
    await run('set', ['headers', 'X-A: 1']);
    await run('set', ['headers', 'X-B: 2']);
    await run('set', ['headers', 'x-a: 3']);
    expect(file().headers).toEqual({ 'X-B': '2', 'x-a': '3' });
    expect((await run('get', ['headers'])).out).toBe('X-B: 2\nx-a: 3\n');
    await expect(run('set', ['headers', 'bad header'])).rejects.toThrow(/^headers: /);
    await run('unset', ['headers', 'X-A']);
    expect(file().headers).toEqual({ 'X-B': '2' });
    await run('unset', ['headers']);
    expect(file().headers).toBeUndefined();
  });

  it('get prints the stored value; an unset key prints nothing (a note on stderr only at a terminal), exit 0', async () => {
    await run('set', ['model', 'gpt-x']);
    expect(await run('get', ['model'])).toMatchObject({ code: 0, out: 'gpt-x\n' });
    expect(await run('get', ['model'], { json: true })).toMatchObject({ code: 0, out: '"gpt-x"\n' });
    // Read by a script ($(…), stdout a pipe): nothing at all, exit 0. At a terminal: a note on stderr.
    expect(await run('get', ['retries'])).toEqual({ code: 0, out: '', err: '' });
    expect(await run('get', ['retries'], {}, undefined, true)).toEqual({ code: 0, out: '', err: 'gatechat: retries is not set\n' });
    expect(await run('get', ['temperature'], { model: 'fast' })).toEqual({ code: 0, out: '', err: '' });
    expect(await run('get', ['temperature'], { model: 'fast' }, undefined, true)).toEqual({ code: 0, out: '', err: 'gatechat: temperature is not set for model fast\n' });
    await expect(run('get', ['model'], { profile: 'nope' })).rejects.toThrow(/no profile named "nope"/);
  });

  it('api-key from piped stdin: one trailing newline trimmed, stored, shown masked', async () => {
    const result = await run('set', ['api-key'], {}, pipedStdin(`${KEY}\n`));
    expect(result.code).toBe(0);
    expect(result.err).toBe('gatechat: api-key saved (sk-…9876)\n');
    expect(file()['api-key']).toBe(KEY);
    if (process.platform !== 'win32') expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect((await run('get', ['api-key'])).out).toBe('sk-…9876\n');
    expect((await run('get', ['api-key'], { showSecrets: true })).out).toBe(`${KEY}\n`);
    await expect(run('set', ['api-key'], {}, pipedStdin(''))).rejects.toThrow(/nothing on stdin/);
  });

  it('api-key as an argument works but warns about shell history; bad keys are never echoed', async () => {
    const result = await run('set', ['api-key', KEY]);
    expect(result.err).toContain('warning: a key typed on the command line may be kept in your shell history');
    expect(result.err).not.toContain(KEY);
    const error = await run('set', ['api-key', 'sk-has a-space-secretpart']).catch((e: Error) => e);
    expect((error as Error).message).not.toContain('secretpart');
  });

  it('api-key from a hidden prompt on a TTY: no echo, backspace, Enter ends; Ctrl-C exits 130', async () => {
    const tty = () => {
      const stream = new PassThrough() as unknown as NodeJS.ReadStream & { rawModes: boolean[] };
      stream.isTTY = true;
      stream.rawModes = [];
      stream.setRawMode = (mode: boolean) => (stream.rawModes.push(mode), stream);
      return stream;
    };
    const stdin = tty();
    const pending = run('set', ['api-key'], {}, stdin);
    setImmediate(() => (stdin as unknown as PassThrough).write(`${KEY}x\u007f\r`));
    const result = await pending;
    expect(result.code).toBe(0);
    expect(result.out).toBe('');
    expect(result.err).not.toContain(KEY);
    expect(result.err).toContain('API key (input hidden): ');
    expect(stdin.rawModes).toEqual([true, false]);
    expect(file()['api-key']).toBe(KEY);

    const stdin2 = tty();
    const cancelled = run('set', ['api-key'], { profile: 'p' }, stdin2).catch((e: unknown) => e);
    setImmediate(() => (stdin2 as unknown as PassThrough).write('sk-par\u0003'));
    const error = await cancelled;
    expect(error).toBeInstanceOf(GatechatError);
    expect((error as GatechatError).exitCode).toBe(130);
    expect(stdin2.rawModes).toEqual([true, false]);
    expect(file().profiles).toBeUndefined();
  });

  it('list shows every effective key per profile, masked, with sources; --json for scripts', async () => {
    await run('set', ['api-key', KEY]);
    await run('set', ['base-url', 'https://top.example/v1']);
    await run('set', ['headers', 'Authorization: Bearer abcdefghijklmnop4321']);
    await run('set', ['model', 'work-model'], { profile: 'work' });
    await run('set', ['default-profile', 'work']);
    process.env.GATECHAT_MODEL = 'env-model';

    const text = (await run('list', [])).out;
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('abcdefghijklmnop4321');
    expect(text).toContain(`# ${join(dir, 'config.json')}`);
    expect(text).toMatch(/^api-key +sk-…9876$/m);
    expect(text).toMatch(/^timeout +120 {2}\(default\)$/m);
    expect(text).toContain('[profile work]  (default-profile)');
    expect(text).toMatch(/^model +work-model$/m);
    expect(text).toMatch(/^base-url +https:\/\/top\.example\/v1 {2}\(from top level\)$/m);
    expect(text).toContain('# GATECHAT_MODEL is set in the environment and overrides model');

    const json = JSON.parse((await run('list', [], { json: true })).out);
    expect(json['default-profile']).toBe('work');
    expect(json.base['api-key']).toEqual({ value: 'sk-…9876', source: 'config' });
    expect(json.base.headers.value).toEqual({ Authorization: '…4321' });
    expect(json.profiles.work.model).toEqual({ value: 'work-model', source: 'profile' });
    expect(json.profiles.work['api-key']).toEqual({ value: 'sk-…9876', source: 'config' });
    expect(json.profiles.work.retries).toEqual({ value: 2, source: 'default' });
    expect(json.env_overrides).toEqual([{ variable: 'GATECHAT_MODEL', key: 'model' }]);
    const secret = JSON.parse((await run('list', [], { json: true, showSecrets: true })).out);
    expect(secret.base['api-key'].value).toBe(KEY);
  });

  it('default-profile must name an existing profile and lives at the top level only', async () => {
    await expect(run('set', ['default-profile', 'work'])).rejects.toThrow(/no profile named "work" \(known profiles: none/);
    await expect(run('set', ['default-profile', 'x'], { profile: 'p' })).rejects.toThrow(/top-level setting/);
    await expect(run('set', ['model', 'm'], { profile: '../evil' })).rejects.toThrow(/^--profile: /);
  });

  it('unset removes a key and is idempotent', async () => {
    await run('set', ['model', 'm']);
    expect(await run('unset', ['model'])).toEqual({ code: 0, out: '', err: '' });
    expect(file().model).toBeUndefined();
    expect(await run('unset', ['model'])).toMatchObject({ code: 0, err: 'gatechat: model was not set\n' });
  });

  it('a corrupt file is reported with its path and left byte-identical by every action', async () => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'config.json');
    writeFileSync(path, '{"api-key": "sk-x", oops');
    const before = readFileSync(path);
    const expected = `config file is not valid JSON: ${path} (fix or remove it)`;
    for (const [action, args] of [['set', ['model', 'm']], ['get', ['model']], ['unset', ['model']], ['list', []], ['set', ['api-key', KEY]]] as const) {
      await expect(run(action, [...args])).rejects.toThrow(expected);
      expect(readFileSync(path).equals(before)).toBe(true);
    }
    expect((await run('path', [])).out).toBe(`${path}\n`);
  });
});
