// SPEC §16 prompt caching (`--cache`): where `cache_control` breakpoints go. A vendor caches the request's
// prefix up to each marked block (tools, system, then the messages in order); a later request whose prefix
// matches reads it at about a tenth of the input price. Three breakpoints at most (Anthropic refuses a
// fifth): the system prompt, the last attachment part, and the last user message before the current one —
// the history a continued conversation sends again. The markers themselves are not part of the prefix, so a
// breakpoint may move to a later message from one request to the next; the content may not change, which is
// why a cached user message is always sent as parts (marking it must not turn a string into a list).

import { userParts } from './attachment-parts.js';
import type { Api, ChatMessage } from './events.js';
import type { JsonObject } from './json.js';

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Chat Completions carries breakpoints only for Anthropic's models, in the ids OpenRouter (`anthropic/…`)
 * and LiteLLM (`claude-…`) pass through to Anthropic; other vendors cache long prefixes by themselves.
 */
export function chatModelTakesBreakpoints(model: string): boolean {
  return model.startsWith('anthropic/') || model.startsWith('claude');
}

/** Which user messages of a request carry a breakpoint: indices into `RequestOptions.messages`. */
export interface Breakpoints {
  /** The last user message with files: marked on its last file part. */
  attachment: number | null;
  /** The last user message before the current prompt: marked on its last part. */
  earlier: number | null;
}

export function breakpointsOf(messages: ReadonlyArray<ChatMessage>): Breakpoints {
  let attachment: number | null = null;
  let current: number | null = null;
  let earlier: number | null = null;
  for (const [index, m] of messages.entries()) {
    if (m.role !== 'user') continue;
    if ((m.attachments?.length ?? 0) > 0) attachment = index;
    earlier = current;
    current = index;
  }
  return { attachment, earlier };
}

function marked(part: JsonObject): JsonObject {
  return { ...part, cache_control: EPHEMERAL };
}

/** The system prompt as one marked text part. */
export function cachedSystem(text: string): JsonObject[] {
  return [marked({ type: 'text', text })];
}

/**
 * A user message's content under `--cache`: always parts (see the top of this file), marked where `at`
 * says. A message with neither files nor text stays the empty string it is without `--cache`.
 */
export function cachedUserContent(message: ChatMessage, api: Api, index: number, at: Breakpoints): string | JsonObject[] {
  const { parts, attachments } = userParts(message, api);
  if (parts.length === 0) return '';
  if (index === at.attachment && attachments > 0) parts[attachments - 1] = marked(parts[attachments - 1]);
  // One marker when the last file part is also the message's last part.
  if (index === at.earlier) parts[parts.length - 1] = marked(parts[parts.length - 1]);
  return parts;
}
