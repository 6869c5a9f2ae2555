/** Shared shapes of the embedded dev gateway (SPEC §9). */

export type Api = 'chat' | 'messages';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  model: string | null;
  /** Completion requests only: how many were in flight when this one arrived, itself included. */
  in_flight?: number;
}

/** GET /__gatechat/stats. */
export interface GatewayStats {
  in_flight: number;
  /** The most completion requests in flight at once since start or the last DELETE /__gatechat/requests. */
  peak_in_flight: number;
  /** Entries in the request log. */
  requests: number;
  /** TCP connections accepted since start: tells a client that reuses its connection from one that does not. */
  connections: number;
}

export interface GatewayOptions {
  /** 0 or omitted: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** When set, every /v1 request must carry it (Bearer or x-api-key). */
  apiKey?: string;
  /** One line per finished request (method, path, model, status, ms); never contains the key. */
  log?: (line: string) => void;
}

export interface RunningGateway {
  /** e.g. http://127.0.0.1:PORT — without /v1. */
  url: string;
  port: number;
  /** Every /v1 request in arrival order (reset by DELETE /__gatechat/requests). */
  requests: RecordedRequest[];
  /** In-flight counts, as GET /__gatechat/stats reports them. */
  stats(): GatewayStats;
  /** Stops listening and ends every open response, stalled ones included. */
  close(): Promise<void>;
}

/** One write on the wire; `token` marks the writes that carry one answer word (faults count them). */
export interface Frame {
  data: string;
  token: boolean;
}

/** Finish reasons in Chat Completions spelling; the Messages wire maps them to stop_reason. */
export type Finish = 'stop' | 'length' | 'tool_calls';

/** A lazily indexed run of tokens, so lorem-1000000 never materialises a million strings. */
export interface Tokens {
  count: number;
  at(index: number): string;
}

export interface ToolCallAnswer {
  id: string;
  name: string;
  /** The complete arguments JSON text. */
  arguments: string;
  /** `arguments` split into the pieces that are streamed (always two or more). */
  fragments: string[];
}

/** What a model answers, independent of the interface that carries it. */
export interface Answer {
  reasoning: Tokens;
  text: Tokens;
  tool: ToolCallAnswer | null;
  finish: Finish;
  /** All input, cached parts included (as Chat Completions counts it; the Messages wire subtracts them). */
  inputTokens: number;
  outputTokens: number;
  /** Billing suffixes (src/gateway/billing.ts): cache counts and how the cost is reported. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reportCost?: 'usage' | 'header' | null;
}

/** Interface-specific stream variations the fault models ask for. */
export interface StreamShape {
  /** Chat: include the usage chunk (the request's stream_options.include_usage). */
  includeUsage: boolean;
  /** no-done: finish, but no [DONE] / message_stop. */
  omitEndMarker: boolean;
  /** error-event / error-chunk: after `after` words, the error instead of the rest. */
  midStreamError: { after: number; kind: 'event' | 'chunk' } | null;
}

/** Per-response identity shared by every chunk of one answer. */
export interface ResponseContext {
  id: string;
  model: string;
  created: number;
}
