import { useCallback, useRef } from 'react';
import { ExitCode, GatechatError } from '../../exit-codes.js';
import type { ChatEvent } from '../../protocol/events.js';
import type { Conversation, TurnOutcome } from '../../session/types.js';
import { TOOL_RESULT_HINT, type ChatAction, type NoticeTone } from './chat-state.js';
import { inChatHint } from './commands.js';
import { loadMarkdown } from './markdown-loader.js';
import { driveTurn } from './turn-driver.js';

/** A turn whose events threw instead of returning an outcome: shown like a failed answer (an unexpected error asks to be reported). */
function failedOutcome(error: unknown, api: Conversation['settings']['api']): TurnOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 'error',
    error: error instanceof GatechatError ? error : new GatechatError(`internal error: ${message}`, ExitCode.internal, 'please report this'),
    result: {
      text: '', reasoning: null, tool_calls: [], finish_reason: 'error', raw_finish_reason: null,
      usage: { input_tokens: null, output_tokens: null }, model: null, api, cid: null,
    },
    timings: { firstTokenMs: null, totalMs: 0 },
  };
}

export interface TurnRunner {
  /** Streams `events` into the chat state as the answer to `prompt`; `controller` cancels it. */
  start(events: AsyncGenerator<ChatEvent, TurnOutcome, void>, prompt: string, controller: AbortController, after?: (outcome: TurnOutcome) => void): void;
  /** Cancels the running answer; false when none is running. */
  cancel(): boolean;
}

/**
 * The chat's one running answer: feeds its batches to the chat reducer, ends it with the outcome (or
 * a failure line) and remembers its AbortController, so Esc, Ctrl-C and leaving can cancel it.
 * `onSettled` runs once the turn is over, however it ended.
 */
export function useTurnRunner(
  conversation: Conversation,
  dispatch: (action: ChatAction) => void,
  notice: (text: string, tone: NoticeTone) => void,
  onSettled: () => void,
): TurnRunner {
  const controllerRef = useRef<AbortController | null>(null);

  const start = useCallback<TurnRunner['start']>(
    (events, prompt, controller, after) => {
      controllerRef.current = controller;
      dispatch({ type: 'turn-start', prompt, now: Date.now() });
      driveTurn(events, {
        onBatch: (batch) => dispatch({ type: 'batch', batch, now: Date.now() }),
        beforeFirstText: loadMarkdown,
      })
        .then(
          (outcome) => {
            const error = outcome.error;
            const line = error ? `${error.message}${error.hint ? ` (${inChatHint(error.hint)})` : ''}` : undefined;
            dispatch({ type: 'turn-end', outcome, now: Date.now(), errorLine: line });
            if (outcome.result.tool_calls.length > 0) notice(TOOL_RESULT_HINT, 'dim');
            after?.(outcome);
          },
          (error: unknown) => dispatch({ type: 'turn-end', outcome: failedOutcome(error, conversation.settings.api), now: Date.now() }),
        )
        .finally(() => {
          controllerRef.current = null;
          onSettled();
        });
    },
    [conversation, dispatch, notice, onSettled],
  );

  const cancel = useCallback(() => {
    const controller = controllerRef.current;
    controller?.abort();
    return controller !== null;
  }, []);

  return { start, cancel };
}
