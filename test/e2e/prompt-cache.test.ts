// SPEC §16 --cache as a user meets it: the built binary against the dev gateway over loopback. A
// continued conversation sends its earlier turns exactly as before (only the cache_control markers move),
// so what the first request wrote to the cache the next one reads: the gateway's simulated cache says so.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();

async function json(args: string[]) {
  writeFileSync(join(ctx.user.home, 'notes.md'), 'alpha beta gamma delta\n');
  const result = await runCli(['--base-url', ctx.base, '--json', ...args], { env: ctx.user.env(), cwd: ctx.user.home });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

type Body = { system?: unknown; messages: unknown[]; tools?: unknown };

/** A value with every cache_control member taken out: the markers move from one request to the next. */
function unmarked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unmarked);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'cache_control').map(([key, v]) => [key, unmarked(v)]));
}

/**
 * `later` starts with what `earlier` sent: the same system prompt and tools, and each message `earlier`
 * sent is, serialized without its markers, the same text at the same position of `later`'s messages — so
 * the serialized array of `later` begins with that of `earlier` up to its closing bracket.
 */
function expectSamePrefix(earlier: Body, later: Body): void {
  expect(JSON.stringify(unmarked(later.system))).toBe(JSON.stringify(unmarked(earlier.system)));
  expect(JSON.stringify(later.tools)).toBe(JSON.stringify(earlier.tools));
  expect(later.messages.length).toBeGreaterThan(earlier.messages.length);
  for (const [i, message] of earlier.messages.entries()) expect(JSON.stringify(unmarked(later.messages[i]))).toBe(JSON.stringify(unmarked(message)));
  const before = JSON.stringify(unmarked(earlier.messages));
  expect(JSON.stringify(unmarked(later.messages)).startsWith(`${before.slice(0, -1)},`)).toBe(true);
}

const bodies = () => ctx.gateway.requests.map((r) => r.body as Body);
const cacheUsage = (out: { usage: Record<string, unknown> }) => [out.usage.cache_read_tokens, out.usage.cache_write_tokens];

// Words the gateway counts: system 3, the fenced notes.md 7, "first question" 2, its echo 9, "second question" 2.
describe('--cache over a continued conversation', () => {
  for (const [api, model] of [['messages', 'echo'], ['chat', 'anthropic/echo']] as const) {
    it(`keeps the earlier turns byte for byte, so each request reads what the one before wrote (${api})`, async () => {
      const first = await json(['--api', api, '-m', model, '--cache', '-s', 'you are terse', '-a', 'notes.md', 'first question']);
      // Written: the system prompt and the attachment (its breakpoint); the prompt after it is not cached.
      expect(cacheUsage(first)).toEqual([0, 10]);
      const second = await json(['-c', '--cache', 'second question']);
      // Read: through the attachment; written: the first prompt, now the earlier message's breakpoint.
      expect(cacheUsage(second)).toEqual([10, 2]);
      const third = await json(['-c', '--cache', 'third one']);
      expect(cacheUsage(third)).toEqual([12, 11]);
      expect(third.usage.input_tokens).toBe(27);

      const [one, two, three] = bodies();
      expectSamePrefix(one, two);
      expectSamePrefix(two, three);
      const marks = JSON.stringify(three).split('"cache_control":{"type":"ephemeral"}').length - 1;
      expect(marks).toBe(3);
    });
  }

  it('sends no breakpoint without --cache, and none to a model that caches by itself over Chat Completions', async () => {
    await json(['-m', 'echo', '--api', 'messages', '-s', 'you are terse', 'hi']);
    await json(['-m', 'echo', '--cache', '-s', 'you are terse', 'hi']);
    for (const body of bodies()) expect(JSON.stringify(body)).not.toContain('cache_control');
    expect(bodies()[1].messages).toEqual([{ role: 'system', content: 'you are terse' }, { role: 'user', content: 'hi' }]);
  });

  it('config cache true turns it on for a profile; --no-cache turns it off for one run; a bad value is refused', async () => {
    const set = await runCli(['config', 'set', '--profile', 'work', 'cache', 'true'], { env: ctx.user.env() });
    expect(set.code, set.stderr).toBe(0);
    await json(['-p', 'work', '--api', 'messages', '-m', 'echo', '-s', 'you are terse', 'hi']);
    await json(['-p', 'work', '--no-cache', '--api', 'messages', '-m', 'echo', '-s', 'you are terse', 'hi']);
    expect(bodies()[0].system).toEqual([{ type: 'text', text: 'you are terse', cache_control: { type: 'ephemeral' } }]);
    expect(bodies()[1].system).toBe('you are terse');
    const bad = await runCli(['config', 'set', 'cache', 'sometimes'], { env: ctx.user.env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('cache');
  });
});
