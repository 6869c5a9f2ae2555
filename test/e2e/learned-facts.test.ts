// Learned facts (SPEC §11): what a one-time retry taught about a model is recorded in its config
// entry, so the next run sends the right request at once. The built binary against the dev gateway.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const run = (args: string[], env: Record<string, string> = {}) => runCli(['--base-url', ctx.base, ...args], { env: { ...ctx.user.env(), ...env } });
const bodies = () => ctx.gateway.requests.map((r) => r.body as Record<string, any>);
const configFile = () => JSON.parse(readFileSync(join(ctx.user.configDir, 'config.json'), 'utf8'));

describe('learned facts', () => {
  it('the max_completion_tokens switch is recorded: the second run sends one request and no warning', async () => {
    const first = await run(['-m', 'max-completion-tokens', '--max-tokens', '50', 'hello there']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('hello there\n');
    expect(first.stderr).toContain('wants max_completion_tokens instead of max_tokens; retrying once');
    expect(bodies().map((b) => [b.max_tokens, b.max_completion_tokens])).toEqual([[50, undefined], [undefined, 50]]);
    expect(configFile().models).toEqual({ 'max-completion-tokens': { 'max-tokens-field': 'max_completion_tokens' } });

    ctx.gateway.requests.length = 0;
    const second = await run(['-m', 'max-completion-tokens', '--max-tokens', '50', 'again']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe('');
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toMatchObject({ max_completion_tokens: 50 });
  });

  it('a 400 saying max_tokens is required is retried exactly once with 4096, warned, recorded', async () => {
    const first = await run(['-m', 'max-tokens-required', 'hello']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('hello\n');
    expect(first.stderr.match(/warning: the gateway requires max_tokens; retrying once with max_tokens 4096/g)).toHaveLength(1);
    expect(bodies().map((b) => b.max_tokens)).toEqual([undefined, 4096]);
    expect(configFile().models['max-tokens-required']).toEqual({ 'max-tokens': 4096 });

    ctx.gateway.requests.length = 0;
    const second = await run(['-m', 'max-tokens-required', 'again']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe('');
    expect(bodies().map((b) => b.max_tokens)).toEqual([4096]);
  });

  it('a configured max-tokens is sent at once; a fact learned under a profile is recorded in that profile', async () => {
    for (const args of [
      ['config', 'set', '--profile', 'work', 'base-url', ctx.base],
      ['config', 'set', '--profile', 'work', '--model', 'claude', 'model', 'max-tokens-required'],
      ['config', 'set', '--profile', 'work', '--model', 'claude', 'max-tokens', '300'],
    ]) {
      expect((await runCli(args, { env: ctx.user.env() })).code).toBe(0);
    }
    // The alias's max-tokens is sent at once (Chat Completions sends a configured limit), so no retry.
    const direct = await runCli(['-p', 'work', '-m', 'claude', 'x'], { env: ctx.user.env() });
    expect(direct.code, direct.stderr).toBe(0);
    expect(bodies().map((b) => b.max_tokens)).toEqual([300]);

    ctx.gateway.requests.length = 0;
    const viaId = await runCli(['-p', 'work', '-m', 'max-tokens-required', 'y'], { env: ctx.user.env() });
    expect(viaId.code, viaId.stderr).toBe(0);
    expect(bodies().map((b) => b.max_tokens)).toEqual([undefined, 4096]);
    expect(configFile().profiles.work.models['max-tokens-required']).toEqual({ 'max-tokens': 4096 });
    expect(configFile().models).toBeUndefined();
  });

  it('a rejection that is neither is not retried and records nothing', async () => {
    const result = await run(['-m', 'fail-400', 'x']);
    expect(result.code).toBe(4);
    expect(bodies()).toHaveLength(1);
    expect(() => configFile()).toThrow();
  });
});
