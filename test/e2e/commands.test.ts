// config, history, models, serve and demo through the built binary, each user in temp dirs.
import { readFileSync, readdirSync, statSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();

describe('config', () => {
  it('set/get/list/unset with a masked key read from stdin, file 0600', async () => {
    const key = 'sk-live-abcdefgh12345678';
    expect((await runCli(['config', 'set', 'base-url', ctx.base], { env: ctx.user.env() })).code).toBe(0);
    expect((await runCli(['config', 'set', 'model', 'echo'], { env: ctx.user.env() })).code).toBe(0);
    const setKey = await runCli(['config', 'set', 'api-key'], { env: ctx.user.env(), stdin: `${key}\n` });
    expect(setKey.code, setKey.stderr).toBe(0);
    expect(setKey.stdout + setKey.stderr).not.toContain(key);

    const path = (await runCli(['config', 'path'], { env: ctx.user.env() })).stdout.trim();
    expect(path).toBe(join(ctx.user.configDir, 'config.json'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))['api-key']).toBe(key);

    const masked = await runCli(['config', 'get', 'api-key'], { env: ctx.user.env() });
    expect(masked.stdout).not.toContain(key);
    expect(masked.stdout).toContain('5678');
    const list = await runCli(['config', 'list'], { env: ctx.user.env() });
    expect(list.stdout).not.toContain(key);
    expect(list.stdout).toContain('echo');
    const shown = await runCli(['config', 'get', 'api-key', '--show-secrets'], { env: ctx.user.env() });
    expect(shown.stdout.trim()).toBe(key);

    // the stored settings are used: a request goes out with the key and model from config
    const answer = await runCli(['--no-save', 'from config'], { env: ctx.user.env() });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toBe('from config\n');
    expect(ctx.gateway.requests.at(-1)!.headers.authorization).toBe(`Bearer ${key}`);

    expect((await runCli(['config', 'unset', 'model'], { env: ctx.user.env() })).code).toBe(0);
    expect((await runCli(['--no-save', 'hi'], { env: ctx.user.env() })).code).toBe(2);
    // What a script reading an unset key sees ($(…)): nothing at all, exit 0 (README, Configuration).
    expect(await runCli(['config', 'get', 'model'], { env: ctx.user.env() })).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('config unset headers NAME removes that header only (README, Configuration)', async () => {
    await runCli(['config', 'set', 'headers', 'X-Team: search'], { env: ctx.user.env() });
    await runCli(['config', 'set', 'headers', 'X-Other: 1'], { env: ctx.user.env() });
    expect((await runCli(['config', 'unset', 'headers', 'X-Team'], { env: ctx.user.env() })).code).toBe(0);
    expect((await runCli(['config', 'get', 'headers'], { env: ctx.user.env() })).stdout).toBe('X-Other: 1\n');
  });

  it('precedence: flag over environment over profile over top level', async () => {
    await runCli(['config', 'set', 'base-url', ctx.base], { env: ctx.user.env() });
    await runCli(['config', 'set', 'model', 'lorem-3'], { env: ctx.user.env() });
    await runCli(['config', 'set', '--profile', 'work', 'model', 'lorem-5'], { env: ctx.user.env() });
    const words = async (args: string[], extra: Record<string, string> = {}) =>
      (await runCli([...args, '--no-save', 'x'], { env: { ...ctx.user.env(), ...extra } })).stdout.trim().split(/\s+/).length;
    expect(await words([])).toBe(3);
    expect(await words(['-p', 'work'])).toBe(5);
    expect(await words([], { GATECHAT_PROFILE: 'work' })).toBe(5);
    expect(await words(['-p', 'work'], { GATECHAT_MODEL: 'lorem-7' })).toBe(7);
    expect(await words(['-p', 'work', '-m', 'lorem-9'], { GATECHAT_MODEL: 'lorem-7' })).toBe(9);
    await runCli(['config', 'set', 'default-profile', 'work'], { env: ctx.user.env() });
    expect(await words([])).toBe(5);
  });

  it('a corrupt config file is reported with its path and left untouched', async () => {
    mkdirSync(ctx.user.configDir, { recursive: true });
    const path = join(ctx.user.configDir, 'config.json');
    writeFileSync(path, '{"model": "echo",,,');
    const result = await runCli(['--base-url', ctx.base, 'hi'], { env: ctx.user.env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(path);
    const set = await runCli(['config', 'set', 'model', 'echo'], { env: ctx.user.env() });
    expect(set.code).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('{"model": "echo",,,');
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('rejects a bad value for a key with exit 2', async () => {
    const result = await runCli(['config', 'set', 'temperature', 'warm'], { env: ctx.user.env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/temperature/);
  });
});

describe('conversations', () => {
  it('records each exchange, continues with -c and --cid, lists, shows and removes', async () => {
    const first = await runCli(['--base-url', ctx.base, '-m', 'echo', '--json', 'first question'], { env: ctx.user.env() });
    expect(first.code, first.stderr).toBe(0);
    const cid = JSON.parse(first.stdout).cid as string;
    expect(cid).toMatch(/\S/);

    const second = await runCli(['--base-url', ctx.base, '-m', 'echo', '-c', 'second question'], { env: ctx.user.env() });
    expect(second.code, second.stderr).toBe(0);
    expect((ctx.gateway.requests.at(-1)!.body as any).messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first question' },
      { role: 'user', content: 'second question' },
    ]);

    const third = await runCli(['--base-url', ctx.base, '-m', 'echo', '--cid', cid, '--no-save', 'third'], { env: ctx.user.env() });
    expect(third.code).toBe(0);
    expect((ctx.gateway.requests.at(-1)!.body as any).messages).toHaveLength(5);

    const files = readdirSync(join(ctx.user.dataDir, 'conversations'));
    expect(files).toHaveLength(1);
    const file = join(ctx.user.dataDir, 'conversations', files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const list = await runCli(['history', 'list'], { env: ctx.user.env() });
    expect(list.stdout).toContain(cid);
    const show = await runCli(['history', 'show', cid], { env: ctx.user.env() });
    expect(show.stdout).toContain('second question');
    expect(show.stdout).not.toContain('third');
    expect((await runCli(['history', 'rm', cid], { env: ctx.user.env() })).code).toBe(0);
    expect((await runCli(['history', 'show', cid], { env: ctx.user.env() })).code).toBe(2);
  });

  it('--cid of an unknown id is exit 2 and nothing is sent', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '--cid', 'nope-123', 'hi'], { env: ctx.user.env() });
    expect(result.code).toBe(2);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('an interrupted answer is kept, marked, and sent back as exactly the partial text', async () => {
    const broken = await runCli(['--base-url', ctx.base, '-m', 'drop-after-4', '--json', '--retries', '0', 'tell me'], { env: ctx.user.env() });
    expect(broken.code).toBe(8);
    const partial = JSON.parse(broken.stdout);
    expect(partial.text.trim().split(/\s+/)).toHaveLength(4);
    const next = await runCli(['--base-url', ctx.base, '-m', 'echo', '-c', 'go on'], { env: ctx.user.env() });
    expect(next.code, next.stderr).toBe(0);
    const messages = (ctx.gateway.requests.at(-1)!.body as any).messages;
    expect(messages[1]).toEqual({ role: 'assistant', content: partial.text });
    const show = await runCli(['history', 'show', partial.cid, '--json'], { env: ctx.user.env() });
    expect(show.stdout).toContain('interrupted');
  });

  it('a torn last line never loses earlier turns', async () => {
    const first = await runCli(['--base-url', ctx.base, '-m', 'echo', '--json', 'keep me'], { env: ctx.user.env() });
    const { cid } = JSON.parse(first.stdout);
    const dir = join(ctx.user.dataDir, 'conversations');
    appendFileSync(join(dir, readdirSync(dir)[0]!), '{"type":"user","content":"half a li');
    const next = await runCli(['--base-url', ctx.base, '-m', 'echo', '--cid', cid, 'again'], { env: ctx.user.env() });
    expect(next.code, next.stderr).toBe(0);
    const messages = (ctx.gateway.requests.at(-1)!.body as any).messages;
    expect(messages[0]).toEqual({ role: 'user', content: 'keep me' });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'again' });
  });
});

describe('models, demo', () => {
  it('models: ids one per line when piped, --json for scripts', async () => {
    const result = await runCli(['models', '--base-url', ctx.base], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toContain('echo');
    const json = await runCli(['models', '--base-url', ctx.base, '--json'], { env: ctx.user.env() });
    expect(JSON.parse(json.stdout).some((m: { id: string }) => m.id === 'echo')).toBe(true);
  });

  it('models against a ctx.gateway without a model list is a clear one-line error', async () => {
    const result = await runCli(['models', '--base-url', `${ctx.gateway.url}/nothing-here`], { env: ctx.user.env() });
    expect(result.code).toBe(4);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/model list/);
  });

  it('demo answers with no configuration at all', async () => {
    const result = await runCli(['demo', 'hello'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('hello\n');
  });

  it('demo records nothing: -c afterwards continues the last real conversation', async () => {
    const real = await runCli(['--base-url', ctx.base, '-m', 'echo', 'the real question'], { env: ctx.user.env() });
    expect(real.code, real.stderr).toBe(0);
    const conversations = () => readdirSync(join(ctx.user.dataDir, 'conversations'));
    expect(conversations()).toHaveLength(1);
    expect((await runCli(['demo', 'a demo question'], { env: ctx.user.env() })).code).toBe(0);
    expect(conversations()).toHaveLength(1);
    const next = await runCli(['--base-url', ctx.base, '-c', 'and then?'], { env: ctx.user.env() });
    expect(next.code, next.stderr).toBe(0);
    const messages = (ctx.gateway.requests.at(-1)!.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content);
    expect(messages).toEqual(['the real question', 'the real question', 'and then?']);
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
