import type { Api, ChatResult } from '../protocol/events.js';
import { formatCost } from '../protocol/cost.js';
import type { TurnOutcome } from '../session/types.js';
import { sanitizeForTerminal } from './terminal-text.js';

/** `model · interface · in/out tokens · seconds` after a one-shot answer on a terminal (stderr). */
export function footerText(outcome: TurnOutcome, model: string, api: Api): string {
  // The model name is the one the gateway reported: drawn without escape codes.
  const from = outcome.result.fallback_from;
  const shown = sanitizeForTerminal(`${outcome.result.model ?? model}${from ? ` (fallback from ${from})` : ''}`);
  const cost = outcome.result.cost ? ` · ${formatCost(outcome.result.cost)}` : '';
  return `${shown} · ${api} · ${tokensText(outcome.result.usage)}${cost} · ${(outcome.timings.totalMs / 1000).toFixed(1)}s`;
}

/** `in 1200 (900 cached) / out 80 tokens` (SPEC §16): cache reads shown when there were any. */
export function tokensText(usage: ChatResult['usage']): string {
  const cached = usage.cache_read_tokens ? ` (${usage.cache_read_tokens} cached)` : '';
  return `in ${usage.input_tokens ?? '–'}${cached} / out ${usage.output_tokens ?? '–'} tokens`;
}
