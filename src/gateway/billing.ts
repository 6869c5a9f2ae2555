/**
 * What the dev gateway says a request cost (SPEC §16), so every way a real gateway reports money can
 * be tried offline: model-name suffixes `+cost` (OpenRouter's `usage.cost`), `+litellm-cost`
 * (LiteLLM's `x-litellm-response-cost` header) and `+cached-N` (N input tokens read from the cache).
 */
import type { Answer } from './types.js';

/** USD per million tokens, a Sonnet-like price list; listed in GET /v1/models in OpenRouter's form. */
export const DEV_PRICES = { in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75 } as const;

/** DEV_PRICES as OpenRouter lists them: USD per token, as decimal strings. */
export const LISTED_PRICING = {
  prompt: (DEV_PRICES.in / 1e6).toFixed(10).replace(/0+$/, ''),
  completion: (DEV_PRICES.out / 1e6).toFixed(10).replace(/0+$/, ''),
  input_cache_read: (DEV_PRICES.cacheRead / 1e6).toFixed(10).replace(/0+$/, ''),
  input_cache_write: (DEV_PRICES.cacheWrite / 1e6).toFixed(10).replace(/0+$/, ''),
};

export type CostReport = 'usage' | 'header' | null;

export interface BillingSpec {
  cost: CostReport;
  /** Input tokens reported as read from the prompt cache (capped at the request's input). */
  cachedTokens: number;
}

export const NO_BILLING: BillingSpec = { cost: null, cachedTokens: 0 };

/** Strips the billing suffixes (any order) off a model name; null when a suffix is malformed. */
export function parseBillingSuffixes(name: string): { base: string; billing: BillingSpec } | null {
  let base = name;
  let cost: CostReport = null;
  let cachedTokens = 0;
  for (;;) {
    let m: RegExpMatchArray | null;
    if (base.endsWith('+cost')) {
      cost = 'usage';
      base = base.slice(0, -'+cost'.length);
    } else if (base.endsWith('+litellm-cost')) {
      cost = 'header';
      base = base.slice(0, -'+litellm-cost'.length);
    } else if ((m = base.match(/\+cached-(\d{1,9})$/))) {
      cachedTokens = Number(m[1]);
      base = base.slice(0, -m[0].length);
    } else {
      return { base, billing: { cost, cachedTokens } };
    }
  }
}

/** The answer's cache counts, as both wires report them. */
export function cacheCounts(answer: Answer): { read: number; write: number } {
  return { read: answer.cacheReadTokens ?? 0, write: answer.cacheWriteTokens ?? 0 };
}

/** What the answer costs at DEV_PRICES, in USD (what `+cost` and `+litellm-cost` report). */
export function devCostUsd(answer: Answer): number {
  const { read, write } = cacheCounts(answer);
  const plain = Math.max(0, answer.inputTokens - read - write);
  const micro = plain * DEV_PRICES.in + read * DEV_PRICES.cacheRead + write * DEV_PRICES.cacheWrite + answer.outputTokens * DEV_PRICES.out;
  // Rounded as a gateway's ledger would; keeps float noise out of the figures tests compare.
  return Math.round(micro * 1e3) / 1e9;
}

/** Applies a model's billing suffixes to its answer. */
export function billed(answer: Answer, billing: BillingSpec): Answer {
  if (billing.cost === null && billing.cachedTokens === 0) return answer;
  return { ...answer, cacheReadTokens: Math.min(billing.cachedTokens, answer.inputTokens), reportCost: billing.cost };
}
