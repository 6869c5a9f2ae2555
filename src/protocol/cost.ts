// What a request cost (SPEC §16): the gateway's own figure when it sends one, else tokens × prices,
// else unknown — never a made-up 0. Pure: the prices come from the caller (model entry, models cache).

import { isRecord, type JsonObject } from './json.js';

export type CostSource = 'gateway' | 'prices';

/** `--json` `cost`; null where it stays unknown. */
export interface Cost {
  usd: number;
  source: CostSource;
}

/** USD per million tokens, as the model entry's `price-*` keys hold them. */
export interface Prices {
  in: number;
  out: number;
  /** Missing: cached input is priced as input (an upper bound rather than a guess of 0). */
  cacheRead?: number;
  cacheWrite?: number;
}

/** The token counts a cost is computed from; `input` is all input, cached parts included. */
export interface TokenCounts {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
}

const MILLION = 1_000_000;

function amount(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** OpenRouter's `usage.cost` (USD, a number; some proxies send it as a string). */
export function usageCost(usage: JsonObject): number | null {
  return amount(usage.cost);
}

/** LiteLLM's `x-litellm-response-cost` header (USD). */
export function headerCost(value: string | undefined): number | null {
  return value === undefined ? null : amount(value);
}

const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);

/**
 * Cache tokens from a Chat Completions usage: `prompt_tokens_details.cached_tokens` (OpenAI,
 * OpenRouter); writes as OpenRouter (`prompt_tokens_details.cache_write_tokens`) or LiteLLM
 * (`cache_creation_input_tokens`) report them. Chat's `prompt_tokens` already includes both.
 */
export function chatCacheTokens(usage: JsonObject): { read: number | null; write: number | null } {
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  return {
    // DeepSeek's own name for it, when a gateway passes its usage through without the details object.
    read: count(details.cached_tokens) ?? count(usage.cache_read_input_tokens) ?? count(usage.prompt_cache_hit_tokens),
    write: count(details.cache_write_tokens) ?? count(usage.cache_creation_input_tokens),
  };
}

/** Cache tokens from a Messages usage; Messages' `input_tokens` counts neither of them. */
export function messagesCacheTokens(usage: JsonObject): { read: number | null; write: number | null } {
  return { read: count(usage.cache_read_input_tokens), write: count(usage.cache_creation_input_tokens) };
}

/** tokens × prices; null when a count that matters is unknown. */
export function priceTokens(tokens: TokenCounts, prices: Prices): number | null {
  const { input_tokens: input, output_tokens: output } = tokens;
  if (input === null && output === null) return null;
  const read = tokens.cache_read_tokens ?? 0;
  const write = tokens.cache_write_tokens ?? 0;
  const plain = Math.max(0, (input ?? 0) - read - write);
  const usd =
    plain * prices.in + read * (prices.cacheRead ?? prices.in) + write * (prices.cacheWrite ?? prices.in) + (output ?? 0) * prices.out;
  return usd / MILLION;
}

/** The cost of one request: the gateway's figure first, then prices, else null. */
export function costOf(gatewayUsd: number | null, tokens: TokenCounts, prices: Prices | null): Cost | null {
  if (gatewayUsd !== null) return { usd: gatewayUsd, source: 'gateway' };
  if (prices === null) return null;
  const usd = priceTokens(tokens, prices);
  return usd === null ? null : { usd, source: 'prices' };
}

/** `$0.0042`, `~$0.0042` when computed from prices; amounts under a cent keep two significant digits. */
export function formatCost(cost: Cost): string {
  return `${cost.source === 'prices' ? '~' : ''}${formatUsd(cost.usd)}`;
}

export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  // 0.000108 → $0.00011, 0.0000031 → $0.0000031: a cheap request still shows what it cost.
  return `$${usd.toFixed(Math.min(12, Math.max(4, 1 - Math.floor(Math.log10(usd)))))}`;
}
