// Per-model entries and aliases (SPEC §11) as a user meets them: `config set --model …` through the
// built binary, then requests to the dev gateway over real loopback HTTP, checked by their bodies.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const env = () => ctx.user.env();
const config = (...args: string[]) => runCli(['config', ...args], { env: env() });
const bodies = () => ctx.gateway.requests.map((r) => ({ path: r.path, body: r.body as Record<string, any> }));
const configFile = () => JSON.parse(readFileSync(join(ctx.user.configDir, 'config.json'), 'utf8'));

async function setAll(...commands: string[][]): Promise<void> {
  for (const args of commands) {
    const result = await config(...args);
    expect(result.code, result.stderr).toBe(0);
  }
}

describe('model aliases and per-model settings', () => {
  it('an alias with api messages and a temperature is sent as a Messages request with that temperature; -t wins', async () => {
    await setAll(
      ['set', 'base-url', ctx.base],
      ['set', '--model', 'critic', 'model', 'echo'],
      ['set', '--model', 'critic', 'api', 'messages'],
      ['set', '--model', 'critic', 'temperature', '0.3'],
    );
    const first = await runCli(['-m', 'critic', 'hello'], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('hello\n');
    const second = await runCli(['-m', 'critic', '-t', '1.1', 'again'], { env: env() });
    expect(second.code, second.stderr).toBe(0);

    const [a, b] = bodies();
    expect(a.path).toBe('/v1/messages');
    expect(a.body).toMatchObject({ model: 'echo', temperature: 0.3 });
    expect(b.path).toBe('/v1/messages');
    expect(b.body).toMatchObject({ model: 'echo', temperature: 1.1 });
  });

  it('a role: the alias system prompt and options go into the body; -s and -o win per field', async () => {
    await setAll(
      ['set', 'base-url', ctx.base],
      ['set', '--model', 'reviewer', 'model', 'echo'],
      ['set', '--model', 'reviewer', 'system', 'You review code.'],
      ['set', '--model', 'reviewer', 'options', '{"top_p":0.5,"seed":7}'],
    );
    expect((await runCli(['-m', 'reviewer'], { env: env(), stdin: 'diff --git a b' })).code).toBe(0);
    expect((await runCli(['-m', 'reviewer', '-s', 'Be kind.', '-o', 'top_p=0.9', 'x'], { env: env() })).code).toBe(0);
    const [a, b] = bodies();
    expect(a.path).toBe('/v1/chat/completions');
    expect(a.body.messages[0]).toEqual({ role: 'system', content: 'You review code.' });
    expect(a.body).toMatchObject({ model: 'echo', top_p: 0.5, seed: 7 });
    expect(b.body.messages[0]).toEqual({ role: 'system', content: 'Be kind.' });
    expect(b.body).toMatchObject({ top_p: 0.9, seed: 7 });
  });

  it('precedence: model entry beats profile and top level; an entry keyed by the real id applies under an alias', async () => {
    await setAll(
      ['set', 'base-url', ctx.base],
      ['set', 'max-tokens', '50'],
      ['set', '--profile', 'work', 'max-tokens', '60'],
      ['set', '--profile', 'work', 'temperature', '0.9'],
      ['set', '--model', 'lorem-200', 'max-tokens', '7'],
      ['set', '--model', 'short', 'model', 'lorem-200'],
      ['set', '--profile', 'work', '--model', 'short', 'temperature', '0.1'],
    );
    expect((await runCli(['-p', 'work', '-m', 'short', 'x'], { env: env() })).code).toBe(0);
    expect((await runCli(['-m', 'short', 'x'], { env: env() })).code).toBe(0);
    expect((await runCli(['-p', 'work', '-m', 'echo', 'x'], { env: env() })).code).toBe(0);
    const [inProfile, top, plain] = bodies();
    expect(inProfile.body).toMatchObject({ model: 'lorem-200', max_tokens: 7, temperature: 0.1 });
    expect(top.body).toMatchObject({ model: 'lorem-200', max_tokens: 7 });
    expect(top.body.temperature).toBeUndefined();
    expect(plain.body).toMatchObject({ model: 'echo', max_tokens: 60, temperature: 0.9 });
  });

  it('GATECHAT_MODEL may name an alias; aliases resolve one level only', async () => {
    await setAll(['set', 'base-url', ctx.base], ['set', '--model', 'a', 'model', 'b'], ['set', '--model', 'b', 'model', 'echo']);
    const result = await runCli(['hi'], { env: { ...env(), GATECHAT_MODEL: 'a' } });
    // `a` → `b`, and `b` is sent as it is (the dev gateway does not know it: 404 → exit 4).
    expect(result.code).toBe(4);
    expect(bodies()[0].body.model).toBe('b');
  });

  it('bad values are refused (exit 2, one line, nothing written); list shows entries; unset removes', async () => {
    await setAll(['set', '--model', 'fast', 'model', 'openai/gpt-4o-mini']);
    const before = readFileSync(join(ctx.user.configDir, 'config.json'), 'utf8');
    for (const args of [
      ['set', '--model', 'fast', 'temperature', 'hot'],
      ['set', '--model', 'fast', 'api', 'responses'],
      ['set', '--model', 'fast', 'max-tokens', '0'],
      ['set', '--model', 'fast', 'options', '{"messages":[]}'],
      ['set', '--model', 'fast', 'options', '[1]'],
      ['set', '--model', 'fast', 'colour', 'red'],
      ['set', '--model', 'has space', 'api', 'chat'],
      ['set', '--model', 'fast', 'model', 'fast'],
    ]) {
      const result = await config(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    expect(readFileSync(join(ctx.user.configDir, 'config.json'), 'utf8')).toBe(before);

    await setAll(['set', '--model', 'fast', 'max-tokens-field', 'max_completion_tokens'], ['set', '--profile', 'p', '--model', 'x', 'api', 'messages']);
    const list = await config('list');
    expect(list.stdout).toMatch(/^\[model fast\]\nmodel +openai\/gpt-4o-mini\nmax-tokens-field +max_completion_tokens$/m);
    expect(list.stdout).toMatch(/^\[profile p · model x\]\napi +messages$/m);
    const json = JSON.parse((await config('list', '--json')).stdout);
    expect(json.models.fast).toEqual({ model: 'openai/gpt-4o-mini', 'max-tokens-field': 'max_completion_tokens' });
    expect(json.profile_models.p).toEqual({ x: { api: 'messages' } });
    expect((await config('list', '--model', 'fast')).stdout).toMatch(/^model +openai\/gpt-4o-mini$/m);
    expect((await config('get', '--model', 'fast', 'model')).stdout).toBe('openai/gpt-4o-mini\n');

    await setAll(['unset', '--model', 'fast', 'max-tokens-field']);
    expect(configFile().models).toEqual({ fast: { model: 'openai/gpt-4o-mini' } });
    await setAll(['unset', '--model', 'fast']);
    expect(configFile().models).toBeUndefined();
    expect(configFile().profiles.p.models).toEqual({ x: { api: 'messages' } });
  });

  it('a broken stored entry is an error naming it when used, and a flag can still override it', async () => {
    await setAll(['set', 'base-url', ctx.base], ['set', '--model', 'echo', 'temperature', '0.2']);
    const file = configFile();
    file.models.echo.temperature = 'warm';
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(ctx.user.configDir, 'config.json'), JSON.stringify(file));
    const broken = await runCli(['-m', 'echo', 'x'], { env: env() });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('config --model echo temperature');
    expect(ctx.gateway.requests).toHaveLength(0);
    const fixed = await runCli(['-m', 'echo', '-t', '0', 'x'], { env: env() });
    expect(fixed.code, fixed.stderr).toBe(0);
  });
});
