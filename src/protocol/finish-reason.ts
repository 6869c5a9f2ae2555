import type { FinishReason } from './events.js';

const KNOWN: Readonly<Record<string, FinishReason>> = {
  // Chat Completions
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
  // Messages
  end_turn: 'stop',
  stop_sequence: 'stop',
  // pause_turn: a server tool paused a long turn; the text so far is a complete answer for us.
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/**
 * Normalise a raw finish_reason / stop_reason. Unknown values (gateways invent their own, e.g.
 * `eos`) count as `stop`: the model ended on its own, and the raw value is kept by the caller.
 */
export function normalizeFinishReason(raw: string): FinishReason {
  return Object.hasOwn(KNOWN, raw) ? KNOWN[raw] : 'stop';
}
