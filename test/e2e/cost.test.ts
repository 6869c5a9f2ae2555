// SPEC §16 cost of each request, as a script reads it: the built binary against the dev gateway over
// loopback. The gateway's own figure (OpenRouter's usage.cost, LiteLLM's header) wins; else the model
// entry's prices, else the models cache's; else null — never a made-up 0.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();
const PROMPT = 'one two three four'; // echo: 4 words in, the same 4 out

async function json(args: string[]) {
  const result = await runCli(['--base-url', ctx.base, '--json', ...args, PROMPT], { env: ctx.user.env() });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** USD at the dev gateway's prices ($3 in, $15 out, $0.30 cache read per million). */
const devUsd = (input: number, output: number, cached = 0) => ((input - cached) * 3 + cached * 0.3 + output * 15) / 1e6;

describe('cost in --json', () => {
  for (const api of ['chat', 'messages'] as const) {
    for (const stream of ['--stream', '--no-stream']) {
      it(`OpenRouter's usage.cost is the gateway's figure (${api}, ${stream})`, async () => {
        const out = await json(['-m', 'echo+cost', '--api', api, stream]);
        expect(out.usage).toMatchObject({ input_tokens: 4, output_tokens: 4 });
        expect(out.cost).toEqual({ usd: devUsd(4, 4), source: 'gateway' });
      });
    }
  }

  it("LiteLLM's x-litellm-response-cost header is the gateway's figure", async () => {
    const out = await json(['-m', 'echo+litellm-cost']);
    expect(out.cost).toEqual({ usd: devUsd(4, 4), source: 'gateway' });
  });

  it('no figure and no prices: cost is null, not 0', async () => {
    const out = await json(['-m', 'echo']);
    expect(out).toHaveProperty('cost', null);
  });

  it("the model entry's price-in / price-out (USD per million) give a computed cost; the gateway's figure still wins", async () => {
    const entry = { 'price-in': 2, 'price-out': 10 };
    mkdirSync(ctx.user.configDir, { recursive: true });
    writeFileSync(join(ctx.user.configDir, 'config.json'), JSON.stringify({ models: { echo: entry, 'echo+cost': entry } }));
    const priced = await json(['-m', 'echo']);
    expect(priced.cost.source).toBe('prices');
    expect(priced.cost.usd).toBeCloseTo((4 * 2 + 4 * 10) / 1e6, 15);
    const figure = await json(['-m', 'echo+cost']);
    expect(figure.cost).toEqual({ usd: devUsd(4, 4), source: 'gateway' });
  });

  it("without an entry, the prices `gatechat models` cached from the gateway's list", async () => {
    const env = ctx.user.env();
    const listed = await runCli(['models', '--base-url', ctx.base], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const cache = JSON.parse(readFileSync(join(ctx.user.dataDir, 'models-cache.json'), 'utf8'));
    expect(cache[ctx.base].prices.echo).toEqual({ in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    const out = await json(['-m', 'echo']);
    expect(out.cost.source).toBe('prices');
    expect(out.cost.usd).toBeCloseTo(devUsd(4, 4), 15);
  });

  it('--jsonl carries the cost in its usage and done events', async () => {
    const result = await runCli(['--base-url', ctx.base, '--jsonl', '-m', 'echo+cost', PROMPT], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const usage = events.find((e) => e.type === 'usage');
    expect(usage).toEqual({ type: 'usage', input_tokens: 4, output_tokens: 4, cache_read_tokens: null, cache_write_tokens: null, cost: { usd: devUsd(4, 4), source: 'gateway' } });
    expect(events.at(-1)).toMatchObject({ type: 'done', cost: { usd: devUsd(4, 4), source: 'gateway' } });
  });

  it('the cost is saved with the answer', async () => {
    const out = await json(['-m', 'echo+litellm-cost']);
    const file = readFileSync(join(ctx.user.dataDir, 'conversations', `${out.cid}.jsonl`), 'utf8');
    const answer = file.trim().split('\n').map((line) => JSON.parse(line)).find((r) => r.type === 'assistant');
    expect(answer.cost).toEqual({ usd: devUsd(4, 4), source: 'gateway' });
  });
});

describe('cache tokens (SPEC §16)', () => {
  for (const api of ['chat', 'messages'] as const) {
    it(`are parsed, counted in the input and priced at the cache-read price (${api})`, async () => {
      const out = await json(['-m', 'echo+cached-3+cost', '--api', api]);
      // Messages reports input_tokens without the cached part: gatechat's input is all input on both.
      expect(out.usage).toEqual({ input_tokens: 4, output_tokens: 4, cache_read_tokens: 3, cache_write_tokens: api === 'messages' ? 0 : null });
      expect(out.cost).toEqual({ usd: devUsd(4, 4, 3), source: 'gateway' });
      const entry = { 'price-in': 3, 'price-out': 15, 'price-cache-read': 0.3 };
      mkdirSync(ctx.user.configDir, { recursive: true });
      writeFileSync(join(ctx.user.configDir, 'config.json'), JSON.stringify({ models: { 'echo+cached-3': entry } }));
      const priced = await json(['-m', 'echo+cached-3', '--api', api]);
      expect(priced.cost.source).toBe('prices');
      expect(priced.cost.usd).toBeCloseTo(devUsd(4, 4, 3), 15);
      const file = readFileSync(join(ctx.user.dataDir, 'conversations', `${priced.cid}.jsonl`), 'utf8');
      const answer = file.trim().split('\n').map((line) => JSON.parse(line)).find((r) => r.type === 'assistant');
      expect(answer.usage).toMatchObject({ input_tokens: 4, cache_read_tokens: 3 });
    });
  }
});
