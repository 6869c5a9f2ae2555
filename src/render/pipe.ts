import type { ChatEvent } from '../protocol/events.js';
import type { TurnOutcome } from '../session/types.js';
import type { OneShotRenderer } from './renderer.js';
import { CoalescingWriter, writeWithBackpressure } from './output.js';
import { jsonText } from './json-text.js';
import type { GuardedStream } from './terminal-stream.js';

export interface PipeRendererOptions {
  /**
   * Each stream sanitised when it is a terminal (TERM=dumb stdout, stderr while stdout is piped), its
   * bytes unchanged when it is a pipe or file (SPEC §8, §20): see terminal-stream.ts.
   */
  stdout: GuardedStream;
  stderr: GuardedStream;
  showReasoning: boolean;
}

/**
 * Plain output for a non-TTY stdout (SPEC §4): the answer's deltas as they arrive, a final newline,
 * then one JSON line per tool call. Reasoning goes to stderr so stdout stays the answer only.
 */
export function createPipeRenderer({ stdout, stderr, showReasoning }: PipeRendererOptions): OneShotRenderer {
  const out = new CoalescingWriter(stdout);
  let lastText = '';
  let reasoningOpen = false;

  const closeReasoning = async () => {
    if (reasoningOpen) {
      await out.flush();
      // The reasoning is over: a sequence it left open must not swallow the newline.
      stderr.settle();
      stderr.write('\n');
      reasoningOpen = false;
    }
  };

  return {
    async event(event: ChatEvent) {
      switch (event.type) {
        case 'text': {
          const delta = event.delta;
          if (!delta) return;
          await closeReasoning();
          lastText = delta;
          await out.write(delta);
          return;
        }
        case 'reasoning': {
          const delta = event.delta;
          if (!showReasoning || !delta) return;
          // Keep the two streams in order on a shared terminal: answer text so far goes out first.
          await out.flush();
          reasoningOpen = true;
          stderr.write(delta);
          return;
        }
        case 'tool_call':
          // Printed at the end from the outcome (the last answer's calls). The reasoning before it is over:
          // a tool loop's ⚙ line follows on stderr and must start a line of its own.
          await closeReasoning();
          return;
        case 'usage':
        case 'finish':
        case 'model':
        case 'error':
          // Errors are reported once, by the caller, from the outcome.
          return;
        default: {
          const never: never = event;
          throw new Error(`unhandled event ${JSON.stringify(never)}`);
        }
      }
    },
    async end(outcome: TurnOutcome) {
      await closeReasoning();
      await out.flush();
      stdout.settle();
      if (lastText && !lastText.endsWith('\n')) await writeWithBackpressure(stdout, '\n');
      // The final answer's calls: those a tool loop ran belong to earlier steps and are not printed.
      for (const call of outcome.result.tool_calls) {
        await writeWithBackpressure(stdout, `${jsonText({ type: 'tool_call', ...call })}\n`);
      }
    },
  };
}
