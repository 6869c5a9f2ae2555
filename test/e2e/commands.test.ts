// config, history, models, serve and demo through the built binary, each user in temp dirs.
import { readFileSync, readdirSync, statSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { makeUserDirs, runCli } from '../helpers/cli.js';

let gateway: RunningGateway;
let base: string;
let user: ReturnType<typeof makeUserDirs>;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  base = `${gateway.url}/v1`;
});
afterAll(() => gateway.close());
beforeEach(() => {
  user = makeUserDirs();
  gateway.requests.length = 0;
});
afterEach(() => user.cleanup());

describe('config', () => {
  it('set/get/list/unset with a masked key read from stdin, file 0600', async () => {
    const key = 'sk-live-abcdefgh12345678';
    expect((await runCli(['config', 'set', 'base-url', base], { env: user.env() })).code).toBe(0);
    expect((await runCli(['config', 'set', 'model', 'echo'], { env: user.env() })).code).toBe(0);
    const setKey = await runCli(['config', 'set', 'api-key'], { env: user.env(), stdin: `${key}\n` });
    expect(setKey.code, setKey.stderr).toBe(0);
    expect(setKey.stdout + setKey.stderr).not.toContain(key);

    const path = (await runCli(['config', 'path'], { env: user.env() })).stdout.trim();
    expect(path).toBe(join(user.configDir, 'config.json'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))['api-key']).toBe(key);

    const masked = await runCli(['config', 'get', 'api-key'], { env: user.env() });
    expect(masked.stdout).not.toContain(key);
    expect(masked.stdout).toContain('5678');
    const list = await runCli(['config', 'list'], { env: user.env() });
    expect(list.stdout).not.toContain(key);
    expect(list.stdout).toContain('echo');
    const shown = await runCli(['config', 'get', 'api-key', '--show-secrets'], { env: user.env() });
    expect(shown.stdout.trim()).toBe(key);

    // the stored settings are used: a request goes out with the key and model from config
    const answer = await runCli(['--no-save', 'from config'], { env: user.env() });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toBe('from config\n');
    expect(gateway.requests.at(-1)!.headers.authorization).toBe(`Bearer ${key}`);

    expect((await runCli(['config', 'unset', 'model'], { env: user.env() })).code).toBe(0);
    expect((await runCli(['--no-save', 'hi'], { env: user.env() })).code).toBe(2);
  });

  it('precedence: flag over environment over profile over top level', async () => {
    await runCli(['config', 'set', 'base-url', base], { env: user.env() });
    await runCli(['config', 'set', 'model', 'lorem-3'], { env: user.env() });
    await runCli(['config', 'set', '--profile', 'work', 'model', 'lorem-5'], { env: user.env() });
    const words = async (args: string[], extra: Record<string, string> = {}) =>
      (await runCli([...args, '--no-save', 'x'], { env: { ...user.env(), ...extra } })).stdout.trim().split(/\s+/).length;
    expect(await words([])).toBe(3);
    expect(await words(['-p', 'work'])).toBe(5);
    expect(await words([], { GATECHAT_PROFILE: 'work' })).toBe(5);
    expect(await words(['-p', 'work'], { GATECHAT_MODEL: 'lorem-7' })).toBe(7);
    expect(await words(['-p', 'work', '-m', 'lorem-9'], { GATECHAT_MODEL: 'lorem-7' })).toBe(9);
    await runCli(['config', 'set', 'default-profile', 'work'], { env: user.env() });
    expect(await words([])).toBe(5);
  });

  it('a corrupt config file is reported with its path and left untouched', async () => {
    mkdirSync(user.configDir, { recursive: true });
    const path = join(user.configDir, 'config.json');
    writeFileSync(path, '{"model": "echo",,,');
    const result = await runCli(['--base-url', base, 'hi'], { env: user.env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(path);
    const set = await runCli(['config', 'set', 'model', 'echo'], { env: user.env() });
    expect(set.code).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('{"model": "echo",,,');
    expect(gateway.requests).toHaveLength(0);
  });

  it('rejects a bad value for a key with exit 2', async () => {
    const result = await runCli(['config', 'set', 'temperature', 'warm'], { env: user.env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/temperature/);
  });
});

describe('conversations', () => {
  it('records each exchange, continues with -c and --cid, lists, shows and removes', async () => {
    const first = await runCli(['--base-url', base, '-m', 'echo', '--json', 'first question'], { env: user.env() });
    expect(first.code, first.stderr).toBe(0);
    const cid = JSON.parse(first.stdout).cid as string;
    expect(cid).toMatch(/\S/);

    const second = await runCli(['--base-url', base, '-m', 'echo', '-c', 'second question'], { env: user.env() });
    expect(second.code, second.stderr).toBe(0);
    expect((gateway.requests.at(-1)!.body as any).messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first question' },
      { role: 'user', content: 'second question' },
    ]);

    const third = await runCli(['--base-url', base, '-m', 'echo', '--cid', cid, '--no-save', 'third'], { env: user.env() });
    expect(third.code).toBe(0);
    expect((gateway.requests.at(-1)!.body as any).messages).toHaveLength(5);

    const files = readdirSync(join(user.dataDir, 'conversations'));
    expect(files).toHaveLength(1);
    const file = join(user.dataDir, 'conversations', files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const list = await runCli(['history', 'list'], { env: user.env() });
    expect(list.stdout).toContain(cid);
    const show = await runCli(['history', 'show', cid], { env: user.env() });
    expect(show.stdout).toContain('second question');
    expect(show.stdout).not.toContain('third');
    expect((await runCli(['history', 'rm', cid], { env: user.env() })).code).toBe(0);
    expect((await runCli(['history', 'show', cid], { env: user.env() })).code).toBe(2);
  });

  it('--cid of an unknown id is exit 2 and nothing is sent', async () => {
    const result = await runCli(['--base-url', base, '-m', 'echo', '--cid', 'nope-123', 'hi'], { env: user.env() });
    expect(result.code).toBe(2);
    expect(gateway.requests).toHaveLength(0);
  });

  it('an interrupted answer is kept, marked, and sent back as exactly the partial text', async () => {
    const broken = await runCli(['--base-url', base, '-m', 'drop-after-4', '--json', '--retries', '0', 'tell me'], { env: user.env() });
    expect(broken.code).toBe(8);
    const partial = JSON.parse(broken.stdout);
    expect(partial.text.trim().split(/\s+/)).toHaveLength(4);
    const next = await runCli(['--base-url', base, '-m', 'echo', '-c', 'go on'], { env: user.env() });
    expect(next.code, next.stderr).toBe(0);
    const messages = (gateway.requests.at(-1)!.body as any).messages;
    expect(messages[1]).toEqual({ role: 'assistant', content: partial.text });
    const show = await runCli(['history', 'show', partial.cid, '--json'], { env: user.env() });
    expect(show.stdout).toContain('interrupted');
  });

  it('a torn last line never loses earlier turns', async () => {
    const first = await runCli(['--base-url', base, '-m', 'echo', '--json', 'keep me'], { env: user.env() });
    const { cid } = JSON.parse(first.stdout);
    const dir = join(user.dataDir, 'conversations');
    appendFileSync(join(dir, readdirSync(dir)[0]!), '{"type":"user","content":"half a li');
    const next = await runCli(['--base-url', base, '-m', 'echo', '--cid', cid, 'again'], { env: user.env() });
    expect(next.code, next.stderr).toBe(0);
    const messages = (gateway.requests.at(-1)!.body as any).messages;
    expect(messages[0]).toEqual({ role: 'user', content: 'keep me' });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'again' });
  });
});

describe('models, demo', () => {
  it('models: ids one per line when piped, --json for scripts', async () => {
    const result = await runCli(['models', '--base-url', base], { env: user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toContain('echo');
    const json = await runCli(['models', '--base-url', base, '--json'], { env: user.env() });
    expect(JSON.parse(json.stdout).some((m: { id: string }) => m.id === 'echo')).toBe(true);
  });

  it('models against a gateway without a model list is a clear one-line error', async () => {
    const result = await runCli(['models', '--base-url', `${gateway.url}/nothing-here`], { env: user.env() });
    expect(result.code).toBe(4);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/model list/);
  });

  it('demo answers with no configuration at all', async () => {
    const result = await runCli(['demo', 'hello'], { env: user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('hello\n');
  });

  it('--version and --help', async () => {
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const option of ['--model', '--temperature', '--max-tokens', '--no-stream', '--system', '--api', '--base-url', '--auth', '--header', '--tools', '--continue', '--cid', '--no-save', '--json', '--jsonl', '--no-reasoning', '--timeout', '--connect-timeout', '--retries', '--profile', '--quiet', '--verbose']) {
      expect(help.stdout).toContain(option);
    }
  });
});
