import type { ChatEvent, ChatResult } from '../protocol/events.js';
import { textPartsOf } from '../protocol/accumulate.js';
import type { TurnOutcome } from '../session/types.js';
import type { OneShotRenderer } from './renderer.js';
import { writeWithBackpressure } from './output.js';
import { jsonText } from './json-text.js';
import type { GuardedStream } from './terminal-stream.js';
import { extractAnswer } from './extract.js';
import { HttpError } from '../transport/errors.js';

export interface JsonOutputOptions {
  /** `-x`: add `extract`, the first fenced code block (else the whole text); `text` stays whole. */
  extract?: boolean;
  /** --jsonl: fields added to every line. */
  tag?: Record<string, unknown>;
}

/** The `--json` object: the result, plus what went wrong when something did. */
export function resultObject(
  outcome: TurnOutcome,
  options: JsonOutputOptions = {},
): ChatResult & { status: string; extract?: string; data?: unknown; error?: { message: string; exit_code: number } } {
  return {
    ...outcome.result,
    // SPEC §16: null when unknown, never left out.
    cost: outcome.result.cost ?? null,
    ...(options.extract ? { extract: extractAnswer(outcome.result.text) } : {}),
    status: outcome.status,
    // --schema: the parsed document (null when the answer is not JSON).
    ...(outcome.data !== undefined ? { data: outcome.data } : {}),
    ...(outcome.error ? { error: { message: outcome.error.message, exit_code: outcome.error.exitCode } } : {}),
    // A tool loop (SPEC §15): each model request's text, calls and results' metadata.
    ...('steps' in outcome ? { steps: (outcome as { steps: unknown }).steps } : {}),
  };
}

/** Above this, `--json` writes the text from its parts instead of encoding the whole object at once. */
const STREAMED_TEXT_CHARS = 1024 * 1024;
/** Stands for the text in the encoded object; JSON keeps it as one escaped string, found and cut there. */
const TEXT_MARK = '\u0000gatechat-text\u0000';

/** `--json`: nothing until the end, then one object (SPEC §4). */
export function createJsonRenderer(stdout: GuardedStream, options: JsonOutputOptions = {}): OneShotRenderer {
  return {
    event() {},
    async end(outcome) {
      const parts = options.extract ? undefined : textPartsOf(outcome.result);
      const length = parts?.reduce((sum, part) => sum + part.length, 0) ?? 0;
      if (!parts || length < STREAMED_TEXT_CHARS) {
        await writeWithBackpressure(stdout, `${jsonText(resultObject(outcome, options))}\n`);
        return;
      }
      // A long answer (up to the 256 MiB cap): encoded part by part, so it is never held twice (SPEC §20).
      const encoded = jsonText(resultObject({ ...outcome, result: withText(outcome.result, TEXT_MARK) }, options));
      const mark = jsonText(TEXT_MARK);
      const at = encoded.indexOf(mark);
      await writeWithBackpressure(stdout, encoded.slice(0, at + 1));
      for (const part of parts) await writeWithBackpressure(stdout, jsonText(part).slice(1, -1));
      await writeWithBackpressure(stdout, `${encoded.slice(at + mark.length - 1)}\n`);
    },
  };
}

/** The result with another text in its place, read field by field so the original text is never joined. */
function withText(result: TurnOutcome['result'], text: string): TurnOutcome['result'] {
  return Object.fromEntries(Object.keys(result).map((key) => [key, key === 'text' ? text : result[key as keyof typeof result]])) as unknown as TurnOutcome['result'];
}

/**
 * `--jsonl`: one event per line while streaming, the `--json` object last as `done`. `options.tag`
 * is added to every line (compare mode: `{"model": name}`, so interleaved events can be told apart).
 */
export function createJsonlRenderer(stdout: GuardedStream, options: JsonOutputOptions = {}): OneShotRenderer {
  let streamErrorSeen = false;
  let usageSeen = false;
  const line = (value: object) => writeWithBackpressure(stdout, `${jsonText(options.tag ? { ...value, ...options.tag } : value)}\n`);

  return {
    async event(event: ChatEvent) {
      switch (event.type) {
        case 'text':
        case 'reasoning':
          if (event.delta) await line({ type: event.type, delta: event.delta });
          return;
        case 'tool_call':
          await line({ type: 'tool_call', id: event.id, name: event.name, arguments: event.arguments });
          return;
        case 'usage':
          // Messages reports usage twice (message_start, message_delta), other gateways in any
          // chunk: one final event with the merged counts is written at the end instead.
          usageSeen = true;
          return;
        case 'error':
          streamErrorSeen = true;
          await line({ type: 'error', code: event.code, message: event.message, status: event.status });
          return;
        case 'finish':
        case 'model':
          // Carried by the final `done` object.
          return;
        default: {
          const never: never = event;
          throw new Error(`unhandled event ${JSON.stringify(never)}`);
        }
      }
    },
    async end(outcome) {
      const { error } = outcome;
      if (usageSeen) await line({ type: 'usage', ...outcome.result.usage, cost: outcome.result.cost ?? null });
      if (error && !streamErrorSeen && outcome.status !== 'cancelled') {
        const status = error instanceof HttpError ? error.status : null;
        const code = error instanceof HttpError ? (error.code ?? null) : null;
        await line({ type: 'error', code, message: error.message, status });
      }
      await line({ type: 'done', ...resultObject(outcome, options) });
    },
  };
}
