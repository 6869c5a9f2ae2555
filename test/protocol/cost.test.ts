import { describe, expect, it } from 'vitest';
import { chatCacheTokens, costOf, formatCost, formatUsd, headerCost, messagesCacheTokens, priceTokens, usageCost } from '../../src/protocol/cost.js';
import { tokensText } from '../../src/render/footer.js';

describe('cost (SPEC §16)', () => {
  it("the gateway's figure wins over prices; no figure and no prices is null, never 0", () => {
    const tokens = { input_tokens: 1000, output_tokens: 100 };
    expect(costOf(0.5, tokens, { in: 1, out: 1 })).toEqual({ usd: 0.5, source: 'gateway' });
    expect(costOf(null, tokens, { in: 3, out: 15 })).toEqual({ usd: (1000 * 3 + 100 * 15) / 1e6, source: 'prices' });
    expect(costOf(null, tokens, null)).toBeNull();
    expect(costOf(null, { input_tokens: null, output_tokens: null }, { in: 3, out: 15 })).toBeNull();
    // A free request the gateway says is free is $0, a known figure.
    expect(costOf(0, tokens, null)).toEqual({ usd: 0, source: 'gateway' });
  });

  it('cached input is priced at the cache prices, or as input when the model has none', () => {
    const tokens = { input_tokens: 1000, output_tokens: 0, cache_read_tokens: 800, cache_write_tokens: 100 };
    expect(priceTokens(tokens, { in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75 })).toBeCloseTo((100 * 3 + 800 * 0.3 + 100 * 3.75) / 1e6, 15);
    expect(priceTokens(tokens, { in: 3, out: 15 })).toBeCloseTo((1000 * 3) / 1e6, 15);
  });

  it('reads the figures where OpenRouter and LiteLLM put them, refusing garbage', () => {
    expect(usageCost({ cost: 0.000669 })).toBe(0.000669);
    expect(usageCost({ cost: '0.25' })).toBe(0.25);
    expect(usageCost({ cost: -1 })).toBeNull();
    expect(usageCost({})).toBeNull();
    expect(headerCost('0.00042')).toBe(0.00042);
    expect(headerCost('NaN')).toBeNull();
    expect(headerCost(undefined)).toBeNull();
  });

  it('reads cache counts in each interface\'s form', () => {
    expect(chatCacheTokens({ prompt_tokens_details: { cached_tokens: 256 } })).toEqual({ read: 256, write: null });
    expect(chatCacheTokens({ prompt_tokens_details: { cached_tokens: 5, cache_write_tokens: 7 } })).toEqual({ read: 5, write: 7 });
    expect(chatCacheTokens({ prompt_tokens_details: null, cache_creation_input_tokens: 9, cache_read_input_tokens: 2 })).toEqual({ read: 2, write: 9 });
    expect(chatCacheTokens({ prompt_cache_hit_tokens: 320 })).toEqual({ read: 320, write: null });
    expect(messagesCacheTokens({ cache_read_input_tokens: 900, cache_creation_input_tokens: 0 })).toEqual({ read: 900, write: 0 });
  });

  it('shows $ amounts as SPEC §16 writes them', () => {
    expect(formatCost({ usd: 0.0042, source: 'gateway' })).toBe('$0.0042');
    expect(formatCost({ usd: 0.0042, source: 'prices' })).toBe('~$0.0042');
    expect(formatUsd(1.5)).toBe('$1.5000');
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.0000031)).toBe('$0.0000031');
    expect(formatUsd(0.000108)).toBe('$0.00011');
    expect(tokensText({ input_tokens: 1200, output_tokens: 80, cache_read_tokens: 900 })).toBe('in 1200 (900 cached) / out 80 tokens');
    expect(tokensText({ input_tokens: 12, output_tokens: 8, cache_read_tokens: 0 })).toBe('in 12 / out 8 tokens');
  });
});
