import type { Cost } from './cost.js';

// The one vocabulary both interfaces decode into. Everything above protocol/ (client, session,
// renderers) sees only these types and never knows which interface answered.

export type Api = 'chat' | 'messages';

/** SPEC §4: finish reasons normalised across interfaces. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'cancelled';

export interface Usage {
  /** All input, cached parts included (Messages' own `input_tokens` excludes them: added back). */
  input_tokens: number | null;
  output_tokens: number | null;
  /** SPEC §16: input read from / written to the prompt cache (null: not reported). */
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
  /** The gateway's own usage object, untouched (cost, cache fields, timing …). */
  raw?: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON value; an empty argument stream is {}; arguments that are not valid JSON stay a string. */
  arguments: unknown;
}

export type ChatEvent =
  /** `pieces`: how many of the gateway's deltas this one merges (absent: one); about one token each. */
  | { type: 'text'; delta: string; pieces?: number }
  /**
   * `block`: on Messages, the whole `thinking` (with its signature) or `redacted_thinking` block, sent
   * once it closed (with an empty delta): a tool loop sends it back verbatim (SPEC §15).
   */
  | { type: 'reasoning'; delta: string; pieces?: number; block?: Record<string, unknown> }
  /** Emitted once per call, when it is complete (never per fragment). */
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  /** Latest known usage; later events overwrite earlier ones field by field (null fields never erase). */
  | {
      type: 'usage';
      input_tokens: number | null;
      output_tokens: number | null;
      cache_read_tokens?: number | null;
      cache_write_tokens?: number | null;
      /** The gateway's own cost figure in USD (OpenRouter `usage.cost`, LiteLLM's response header). */
      cost?: number | null;
      raw?: Record<string, unknown>;
    }
  /** The model said why it stopped (finish_reason / stop_reason). */
  | { type: 'finish'; reason: FinishReason; raw: string | null }
  /** Model id as reported by the gateway. */
  | { type: 'model'; model: string }
  /** An error object inside a 200 stream (`event: error`, or an `error` field in a chunk). */
  | { type: 'error'; code: string | number | null; message: string; status: number | null };

/**
 * How a stream ended (SPEC §5.4). `end_marker`: [DONE] or message_stop. `finish_then_eof`: no end
 * marker but a finish_reason / stop_reason followed by a clean EOF — also complete. `truncated`:
 * any other EOF — an interrupted stream (exit 8). `error`: an error event was seen (exit 6) even
 * when an end marker followed it.
 */
export type Termination = 'end_marker' | 'finish_then_eof' | 'truncated' | 'error';

/** One Server-Sent Event as eventsource-parser delivers it. */
export interface SseMessage {
  event?: string | undefined;
  data: string;
}

/** Where a decoder puts the events it makes: an array, or a caller's handler with an array's push. */
export interface EventSink {
  push(event: ChatEvent): unknown;
}

/** Stateful decoder for one streamed response. Pure: no I/O, no timers. */
export interface StreamDecoder {
  /** Feed one SSE message; returns the events it produced (possibly none). */
  push(message: SseMessage): ChatEvent[];
  /**
   * push() into the caller's sink: no array per message (a batch decodes tens of thousands of them).
   * The same events in the same order as push().
   */
  pushTo(message: SseMessage, sink: EventSink): void;
  /** True once the end marker ([DONE] / message_stop) was seen: the client can stop reading. */
  readonly ended: boolean;
  /** The body reached a clean EOF (or the end marker): flush pending state and say how it ended. */
  finish(): { events: ChatEvent[]; termination: Termination };
}

// ---- conversation messages (what we send) ----

export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/**
 * A file attached to a user message (SPEC §12), its type sniffed from its bytes. `path` is the name
 * the user gave (a directory's files: joined under it). Binary content travels as base64 because
 * both interfaces carry it that way; `bytes` is the decoded size.
 */
export type Attachment =
  | { kind: 'text'; path: string; text: string }
  | { kind: 'image'; path: string; mime: ImageMime; data: string; bytes: number }
  | { kind: 'pdf'; path: string; data: string; bytes: number };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** The message's own text (stdin and the prompt); attachments are kept apart until the wire. */
  content: string;
  /** user turns only: text files become fenced blocks before `content`, images and PDFs content parts. */
  attachments?: Attachment[];
  /** assistant turns that called tools */
  tool_calls?: ToolCall[];
  /** tool results */
  tool_call_id?: string;
  /** tool results: a failure or a denial (Messages `is_error: true`). */
  is_error?: boolean;
  /**
   * assistant turns with tool_calls inside a tool loop (SPEC §15): their reasoning goes back — Messages
   * `blocks` verbatim before the tool_use blocks, Chat Completions `text` as `reasoning_content`.
   */
  reasoning?: { text: string | null; blocks: Record<string, unknown>[] };
}

/** Tool definitions in Chat Completions form (SPEC §5.4 `--tools`). */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface RequestOptions {
  model: string;
  messages: ChatMessage[];
  system?: string;
  temperature?: number;
  maxTokens?: number;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  stream: boolean;
  tools?: ToolDefinition[];
  /**
   * `--schema`: ask for a JSON document matching this JSON Schema (Chat Completions
   * `response_format`, Messages a forced `answer` tool). SPEC §12.
   */
  schema?: Record<string, unknown>;
  /**
   * Extra body fields (`-o key=value`, per-model `options`, batch `options`), merged into the body
   * last by both builders so they can set anything gatechat does not build itself. `model`,
   * `messages` and `stream` are refused where they are parsed (RESERVED_BODY_FIELDS).
   */
  extraBody?: Record<string, unknown>;
  /** `--cache` (SPEC §16): cache_control breakpoints, placed by prompt-cache.ts. */
  cache?: boolean;
}

/** Body fields gatechat builds itself: an extra field may not replace them. */
export const RESERVED_BODY_FIELDS: readonly string[] = ['model', 'messages', 'stream'];

/** The last step of both request builders. */
export function withExtraBody(body: Record<string, unknown>, extra: Record<string, unknown> | undefined): Record<string, unknown> {
  if (extra === undefined) return body;
  for (const [key, value] of Object.entries(extra)) {
    // Checked at parse time too; here so no caller can replace what the conversation depends on.
    if (!RESERVED_BODY_FIELDS.includes(key)) body[key] = value;
  }
  return body;
}

/** The `--json` object (SPEC §4), also the payload of the last `--jsonl` event. */
export interface ChatResult {
  text: string;
  reasoning: string | null;
  tool_calls: ToolCall[];
  finish_reason: FinishReason | null;
  raw_finish_reason: string | null;
  usage: { input_tokens: number | null; output_tokens: number | null; cache_read_tokens?: number | null; cache_write_tokens?: number | null };
  model: string | null;
  api: Api;
  cid: string | null;
  /** SPEC §17: the model first asked for, when a fallback (`model`) answered instead. */
  fallback_from?: string;
  /** SPEC §16: what the request cost (null: unknown). Always set by the accumulator. */
  cost?: Cost | null;
}
