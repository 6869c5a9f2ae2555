import type { ChatEvent } from '../protocol/events.js';
import { HttpError } from '../transport/errors.js';
import { streamChat, type StreamChatOptions, type StreamOutcome } from './chat-stream.js';

// Fallbacks (SPEC §17): the same request to the next model when one fails before its first byte in
// a way another model may not — rate limited after its retries, a gateway or upstream error (5xx,
// 529 overloaded), or a model the gateway does not know (404). A policy around one request: the
// transport still makes one request (with its own retries) per model, and nothing is tried again
// once an answer began.

export interface FallbackOutcome extends StreamOutcome {
  /** The model that answered (the one asked for, or a fallback). */
  model: string;
  /** The model first asked for, when a fallback answered; else null. */
  fallbackFrom: string | null;
}

/** Whether a failure before the answer's first byte hands the request to the next model. */
export function fallsBack(error: unknown): boolean {
  if (!(error instanceof HttpError)) return false;
  return error.status === 429 || error.status === 404 || error.status >= 500 || error.type === 'overloaded_error';
}

/** streamChat() over `opts.request.model`, then each of `fallbacks` in turn while they fail so. */
export async function* streamChatWithFallback(
  opts: StreamChatOptions,
  fallbacks: readonly string[],
  onFallback?: (info: { from: string; to: string; error: HttpError }) => void,
): AsyncGenerator<ChatEvent, FallbackOutcome, void> {
  const first = opts.request.model;
  const models = [first, ...fallbacks.filter((m) => m !== first)];
  for (let i = 0; ; i++) {
    const model = models[i]!;
    let began = false;
    const onEvent = opts.onEvent;
    const events = streamChat({
      ...opts,
      request: { ...opts.request, model },
      // Events taken by a sink began the answer as surely as yielded ones.
      ...(onEvent ? { onEvent: (event: ChatEvent) => ((began = true), onEvent(event)) } : {}),
    });
    try {
      for (;;) {
        const step = await events.next();
        if (step.done) return { ...step.value, model, fallbackFrom: i === 0 ? null : first };
        began = true;
        yield step.value;
      }
    } catch (error) {
      const next = models[i + 1];
      if (began || next === undefined || opts.signal?.aborted || !fallsBack(error)) throw error;
      onFallback?.({ from: model, to: next, error: error as HttpError });
    }
  }
}
