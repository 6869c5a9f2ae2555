import type { Api } from '../protocol/events.js';
import type { TurnOutcome } from '../session/types.js';
import { sanitizeForTerminal } from './terminal-text.js';

/** `model · interface · in/out tokens · seconds` after a one-shot answer on a terminal (stderr). */
export function footerText(outcome: TurnOutcome, model: string, api: Api): string {
  const { input_tokens: input, output_tokens: output } = outcome.result.usage;
  const tokens = `in ${input ?? '–'} / out ${output ?? '–'} tokens`;
  // The model name is the one the gateway reported: drawn without escape codes.
  const from = outcome.result.fallback_from;
  const shown = sanitizeForTerminal(`${outcome.result.model ?? model}${from ? ` (fallback from ${from})` : ''}`);
  return `${shown} · ${api} · ${tokens} · ${(outcome.timings.totalMs / 1000).toFixed(1)}s`;
}
