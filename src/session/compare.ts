import type { Attachment, ChatEvent } from '../protocol/events.js';
import type { Conversation, TurnOutcome } from './types.js';

// Compare mode (SPEC §11): one prompt to several models at once. Each model is its own Conversation
// (own connection settings, retries, timeouts and saved conversation) on the same turn code as a
// one-shot; this module only schedules them and reports each one's events and outcome.

/** At most this many requests in flight; the rest start as earlier ones finish. */
export const MAX_COMPARE_IN_FLIGHT = 8;

export interface CompareHandlers {
  /** Every event of model `index` (in the order given), as it arrives. Awaited: backpressure. */
  onEvent(index: number, event: ChatEvent): void | Promise<void>;
  /** Model `index` finished (any status); awaited before that slot takes the next model. */
  onDone(index: number, outcome: TurnOutcome): void | Promise<void>;
  /** Model `index` is about to send (it may have waited for a free slot). */
  onStart?(index: number): void;
}

/**
 * Sends `prompt` through every conversation, at most `limit` at a time, and resolves with the
 * outcomes in the order given once all have finished. Aborting `signal` cancels every turn; each
 * then ends as `cancelled` with what had arrived (Conversation.send never throws for those).
 */
export async function runCompare(
  conversations: readonly Conversation[],
  /** The prompt, or the prompt with its attachments (-a: every model gets the same files). */
  message: string | { prompt: string; attachments: Attachment[] },
  signal: AbortSignal,
  handlers: CompareHandlers,
  limit = MAX_COMPARE_IN_FLIGHT,
): Promise<TurnOutcome[]> {
  const { prompt, attachments } = typeof message === 'string' ? { prompt: message, attachments: [] } : message;
  const outcomes: TurnOutcome[] = new Array(conversations.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < conversations.length) {
      const index = next++;
      handlers.onStart?.(index);
      const turn = conversations[index].send(prompt, signal, attachments);
      let step = await turn.next();
      while (!step.done) {
        await handlers.onEvent(index, step.value);
        step = await turn.next();
      }
      outcomes[index] = step.value;
      await handlers.onDone(index, step.value);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, conversations.length)) }, worker);
  await Promise.all(workers);
  return outcomes;
}
