// A base URL that already ends in an endpoint (…/chat/completions, …/messages, …/models) gets a hint
// to drop that part when the request fails, instead of a generic one. Built binary, dev gateway.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();

describe('a base URL ending in an endpoint path', () => {
  it.each([
    ['/chat/completions', []],
    ['/messages', ['--api', 'messages']],
    ['/chat/completions/', ['--api', 'messages']],
  ])('…%s: the error says to drop it (exit 4, one line)', async (suffix, args) => {
    const result = await runCli(['--base-url', `${ctx.base}${suffix}`, '-m', 'echo', '--no-save', ...args, 'hi'], { env: ctx.user.env() });
    expect(result.code).toBe(4);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const endpoint = suffix.replace(/\/$/, '');
    expect(lines[0]).toMatch(/^gatechat: gateway rejected the request: HTTP 404: /);
    expect(lines[0]!.endsWith(` (the base URL ends in ${endpoint}, which gatechat adds itself: use --base-url ${ctx.base})`)).toBe(true);
  });

  it('gatechat models with …/models: the same hint', async () => {
    const result = await runCli(['models', '--base-url', `${ctx.base}/models`], { env: ctx.user.env() });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(new RegExp(`\\(the base URL ends in /models, which gatechat adds itself: use --base-url ${ctx.base.replace(/[.:/]/g, '\\$&')}\\)\\n$`));
  });

  it('an ordinary base URL keeps the ordinary hint', async () => {
    const result = await runCli(['--base-url', `${ctx.base}/nothing-here`, '-m', 'echo', '--no-save', 'hi'], { env: ctx.user.env() });
    expect(result.code).toBe(4);
    expect(result.stderr).not.toContain('which gatechat adds itself');
  });
});
