import { ExitCode, GatechatError } from '../exit-codes.js';
import type { Api, ChatEvent, RequestOptions, SseMessage, Termination } from '../protocol/events.js';
import { protocolFor, type Protocol, type ProtocolDecoder } from '../protocol/index.js';
import { headerCost } from '../protocol/cost.js';
import { describeErrorBody } from '../protocol/error-body.js';
import { otherMaxTokensField, requiresMaxTokens } from '../protocol/max-tokens-field.js';
import { startDeadline } from '../transport/deadline.js';
import { HttpError, StreamDamagedError } from '../transport/errors.js';
import { sendRequest, type Connection, type HttpResponse, type RetryInfo } from '../transport/http.js';
import { redactSecrets, secretsOf } from '../transport/headers.js';
import { SseReader } from './sse-reader.js';

export type MaxTokensField = RequestOptions['maxTokensField'];

/** What a retry taught about the model (SPEC §11), in config-key spelling, to be recorded in its entry. */
export interface LearnedFacts {
  'max-tokens-field'?: MaxTokensField;
  'max-tokens'?: number;
  /** The context window a 400 named (SPEC §17); learned by the session, not here. */
  context?: number;
}

/** When a gateway requires max_tokens and none was configured (SPEC §11). */
export const DEFAULT_REQUIRED_MAX_TOKENS = 4096;

export interface StreamOutcome {
  termination: Termination;
  /** The field that worked; the session keeps it for later turns. */
  maxTokensField: MaxTokensField;
  /** The token limit that was sent (a gateway that requires one may have made us add it). */
  maxTokens: number | undefined;
  /** Set only when a retry learned something; the session records it for the next run. */
  learned: LearnedFacts;
  requestId: string | null;
}

export interface StreamChatOptions {
  conn: Connection;
  api: Api;
  request: RequestOptions;
  signal?: AbortSignal;
  log?: (line: string) => void;
  warn?: (line: string) => void;
  onRetry?: (info: RetryInfo) => void;
  /**
   * Takes every event as it is decoded instead of the generator yielding it (which then yields nothing
   * and only returns the outcome): for a caller that only folds the events (a batch line). Each yield
   * passes an event through several async generator levels, a promise per level, tens of thousands of
   * times over a batch.
   */
  onEvent?: (event: ChatEvent) => void;
}

/** What the answer turned out to be, whatever was asked for. */
type BodyKind = 'sse' | 'json' | 'html';

function bodyKind(contentType: string, requestedStream: boolean): BodyKind {
  const ct = contentType.toLowerCase();
  if (ct.includes('text/event-stream')) return 'sse';
  if (ct.includes('json')) return 'json';
  if (ct.includes('text/html')) return 'html';
  // No or an odd content type: trust what we asked for.
  return requestedStream ? 'sse' : 'json';
}

/**
 * One turn as events: socket → TextDecoder(stream) → eventsource-parser → decoder → yield.
 * Returning early (break in for-await) or aborting `signal` aborts the HTTP request.
 * Throws transport errors (HttpError, NetworkError, StreamInterruptedError, abort errors).
 */
export async function* streamChat(opts: StreamChatOptions): AsyncGenerator<ChatEvent, StreamOutcome, void> {
  const protocol = protocolFor(opts.api);
  // Our own controller, so that leaving the generator early aborts the request too. With onEvent
  // nothing is yielded, so nobody can leave early: without --max-time the caller's signal is enough
  // (a controller and a listener on the caller's signal per request were a visible cost in a batch).
  const controller = opts.onEvent && opts.signal && opts.conn.maxTimeMs === undefined ? null : new AbortController();
  const onAbort = (): void => controller?.abort();
  if (controller) opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) controller?.abort();
  // --max-time: the whole turn's requests (the token-field retry too) and the whole body.
  const deadline = startDeadline(opts.conn.maxTimeMs, () => controller?.abort());
  const signal = controller ? controller.signal : opts.signal!;

  let response: HttpResponse | undefined;
  // A request whose answer was decoded to its end has nothing left to abort; aborting anyway builds
  // an AbortError with a stack trace per request, a visible cost over a batch of thousands.
  let decoded = false;
  try {
    const sent = await send(protocol, opts, signal);
    response = sent.response;
    const outcome = { maxTokensField: sent.request.maxTokensField, maxTokens: sent.request.maxTokens, learned: sent.learned, requestId: response.requestId };
    const kind = bodyKind(response.headers['content-type'] ?? '', opts.request.stream);
    // LiteLLM says what the request cost in a header (SPEC §16); it rides along as a usage event.
    const cost = headerCost(response.headers['x-litellm-response-cost']);
    if (cost !== null && kind !== 'html') {
      const usage: ChatEvent = { type: 'usage', input_tokens: null, output_tokens: null, cost };
      if (opts.onEvent) opts.onEvent(usage);
      else yield usage;
    }
    // A gateway may echo the request's credentials inside an error it sends with a 200; such
    // messages reach the terminal, --json and saved conversations, so they are redacted here.
    const secrets = opts.conn.pool?.secretsOf(opts.conn) ?? secretsOf(opts.conn);
    const log = opts.log && ((line: string) => opts.log!(redactSecrets(line, secrets)));
    switch (kind) {
      case 'sse': {
        const termination = yield* decodeStream(response, protocol.createDecoder(), log, secrets, opts.onEvent);
        decoded = true;
        return { ...outcome, termination };
      }
      case 'json': {
        const termination = yield* decodeJson(response, protocol, secrets, log, opts.onEvent);
        decoded = true;
        return { ...outcome, termination };
      }
      case 'html':
        throw await htmlAnswerError(response, log);
      default: {
        const never: never = kind;
        throw new Error(`unknown body kind ${String(never)}`);
      }
    }
  } catch (error) {
    // Ctrl-C stays a cancel even when the deadline passed meanwhile.
    throw deadline === null || opts.signal?.aborted ? error : deadline.explain(error);
  } finally {
    deadline?.clear();
    if (controller) opts.signal?.removeEventListener('abort', onAbort);
    // Harmless after a complete body; essential when the consumer stopped early.
    response?.close();
    if (!decoded) controller?.abort();
  }
}

/**
 * One retry for the token-limit field (SPEC §5.3, §11): a 400 that names the other field switches
 * to it; a 400 saying `max_tokens` is required adds it (the configured limit, else 4096).
 */
async function send(
  protocol: Protocol,
  opts: StreamChatOptions,
  signal: AbortSignal,
): Promise<{ response: HttpResponse; request: RequestOptions; learned: LearnedFacts }> {
  let request = opts.request;
  const learned: LearnedFacts = {};
  for (let retried = false; ; retried = true) {
    const body = protocol.buildRequest(request);
    try {
      const response = await sendRequest({
        conn: opts.conn,
        method: 'POST',
        path: protocol.path,
        body,
        signal,
        log: opts.log,
        onRetry: opts.onRetry,
        wholeAnswer: !opts.request.stream,
      });
      return { response, request, learned };
    } catch (error) {
      if (retried || !(error instanceof HttpError)) throw error;
      const info = { message: error.gatewayMessage, param: error.param };
      const field = request.maxTokensField;
      // Only when the field was actually sent: otherwise switching cannot change anything.
      const next = Object.prototype.hasOwnProperty.call(body, field) ? otherMaxTokensField(error.status, info, field) : null;
      if (next !== null) {
        opts.warn?.(`warning: the gateway wants ${next} instead of ${field}; retrying once with it`);
        request = { ...request, maxTokensField: next };
        learned['max-tokens-field'] = next;
      } else if (!Object.prototype.hasOwnProperty.call(body, 'max_tokens') && requiresMaxTokens(error.status, info)) {
        const maxTokens = request.maxTokens ?? DEFAULT_REQUIRED_MAX_TOKENS;
        opts.warn?.(`warning: the gateway requires max_tokens; retrying once with max_tokens ${maxTokens}`);
        if (request.maxTokens === undefined) learned['max-tokens'] = maxTokens;
        if (field !== 'max_tokens') learned['max-tokens-field'] = 'max_tokens';
        request = { ...request, maxTokens, maxTokensField: 'max_tokens' };
      } else {
        throw error;
      }
    }
  }
}

async function* decodeStream(
  response: HttpResponse,
  decoder: ProtocolDecoder,
  log: ((line: string) => void) | undefined,
  secrets: string[],
  onEvent?: (event: ChatEvent) => void,
): AsyncGenerator<ChatEvent, Termination, void> {
  const pending: ChatEvent[] = [];
  let current: SseMessage | null = null;
  // The decoder's events go straight here (no array per message).
  const sink = {
    push(event: ChatEvent): void {
      if (event.type === 'error') {
        // The error line holds the gateway's message in short; -v shows the whole event.
        log?.(`< error event: ${current!.data}`);
        event = redactError(event, secrets);
      }
      if (onEvent) onEvent(event);
      else pushCoalesced(pending, event);
    },
  };
  const reader = new SseReader((message) => {
    // Anything after the end marker (a trailing [DONE], a proxy's footer) is not part of the answer.
    if (decoder.ended) return;
    current = message;
    decoder.pushTo(message, sink);
  });
  let logged = 0;
  const flushWarnings = (): void => {
    for (; logged < decoder.warnings.length; logged++) log?.(decoder.warnings[logged]);
  };

  const chunks = response.body[Symbol.asyncIterator]();
  for (;;) {
    const step = await chunks.next();
    if (step.done) break;
    reader.feed(step.value);
    flushWarnings();
    while (pending.length > 0) yield pending.shift()!;
    if (decoder.ended) {
      await awaitCleanEnd(chunks);
      break;
    }
  }
  if (!decoder.ended) {
    reader.end();
    flushWarnings();
    while (pending.length > 0) yield pending.shift()!;
  }
  const finished = decoder.finish();
  flushWarnings();
  for (const event of finished.events) {
    if (onEvent) onEvent(redactError(event, secrets));
    else yield redactError(event, secrets);
  }
  const notSse = reader.notSse;
  if (notSse !== null) throw notSseError(notSse, response.headers['content-type'], secrets);
  // An error event decides the exit code (6) whatever else went wrong; lost events come next.
  const damage = decoder.damage;
  if (damage !== null && finished.termination !== 'error') {
    throw new StreamDamagedError(damage.count, controlsEscaped(redactSecrets(damage.sample, secrets)), finished.termination === 'truncated');
  }
  return finished.termination;
}

/**
 * Text (or reasoning) deltas that arrived in one network read go on as one event: every event passes
 * through several async generator layers to the renderer, and a gateway sends a token per event, many
 * per read. Nothing waits for more data to merge, so the first token is never later for it.
 */
function pushCoalesced(pending: ChatEvent[], event: ChatEvent): void {
  const last = pending.length > 0 ? pending[pending.length - 1] : undefined;
  if (last !== undefined && last.type === event.type && mergeable(event) && mergeable(last)) {
    // The count keeps the chat's live token estimate right: a merged event is still several tokens.
    if (last.pieces !== undefined) {
      // Made here by an earlier merge and not yet passed on (no decoder sets pieces): grown in place.
      last.delta += event.delta;
      last.pieces += event.pieces ?? 1;
    } else {
      pending[pending.length - 1] = { type: event.type, delta: last.delta + event.delta, pieces: 1 + (event.pieces ?? 1) };
    }
    return;
  }
  pending.push(event);
}

/** A text or reasoning delta that may join its neighbour (a reasoning block's signature may not). */
function mergeable(event: ChatEvent): event is Extract<ChatEvent, { type: 'text' | 'reasoning' }> {
  return event.type === 'text' || (event.type === 'reasoning' && event.block === undefined);
}

/** A body without a single event, comment or field: say what it was rather than "connection closed". */
function notSseError(head: string, contentType: string | undefined, secrets: string[]): GatechatError {
  const summary = controlsEscaped(redactSecrets(describeErrorBody(head, 'text/plain').message, secrets)).slice(0, 200);
  const labelled = (contentType ?? '').toLowerCase().includes('text/event-stream')
    ? 'although its content type is text/event-stream'
    : `(content type: ${contentType ? controlsEscaped(contentType) : 'none'})`;
  return new GatechatError(`the gateway's answer is not an event stream ${labelled}: ${summary}`, ExitCode.server);
}

/** Bytes a hostile gateway chose, quoted in an error line: no control reaches the terminal. */
function controlsEscaped(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** How long the end of the body may lag behind the end marker before the body is cut off. */
const END_AFTER_MARKER_MS = 50;

/**
 * After the end marker a gateway ends the response at once. Reading that end (rather than cutting the
 * body off) lets the connection go back to the pool untouched and spares Node and undici building
 * two AbortErrors with stack traces per request — a visible cost over a batch of thousands. A
 * gateway that keeps the stream open gets END_AFTER_MARKER_MS, then the caller closes the body.
 */
async function awaitCleanEnd(chunks: AsyncIterator<Uint8Array> & { readonly drained?: boolean }): Promise<void> {
  // Mostly the end came in the same read as the marker: nothing to wait for, no timer to set.
  if (chunks.drained === true) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), END_AFTER_MARKER_MS);
  });
  const next = chunks.next().then(
    (step) => (step.done ? 'ended' : 'more'),
    () => 'failed',
  );
  try {
    // Whatever comes after the marker is not part of the answer; only whether the body ended matters.
    await Promise.race([next, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Error messages a gateway sends with a 200 can echo credentials back: never show or save them. */
function redactError(event: ChatEvent, secrets: string[]): ChatEvent {
  return event.type === 'error' ? { ...event, message: redactSecrets(event.message, secrets) } : event;
}

/** -v: the body of a 200 that is not a usable answer, which the error line only summarises. */
const MAX_LOGGED_BODY = 64 * 1024;
function logBody(log: ((line: string) => void) | undefined, text: string): void {
  if (!log) return;
  const more = text.length - MAX_LOGGED_BODY;
  log(`< body: ${more > 0 ? `${text.slice(0, MAX_LOGGED_BODY)}… (${more} more characters)` : text}`);
}

async function* decodeJson(
  response: HttpResponse,
  protocol: Protocol,
  secrets: string[],
  log: ((line: string) => void) | undefined,
  onEvent?: (event: ChatEvent) => void,
): AsyncGenerator<ChatEvent, Termination, void> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    logBody(log, text);
    // A body that starts as JSON but stops early is a cut-off answer, not a gateway's prose: the
    // non-stream form of a stream without its end marker (exit 8).
    if (/^\s*[{[]/.test(text) && /end of (JSON )?input|Unterminated|Expected/i.test((error as Error).message)) {
      throw new GatechatError(`the gateway's JSON answer was cut off after ${Buffer.byteLength(text)} bytes`, ExitCode.truncated);
    }
    const summary = redactSecrets(describeErrorBody(text, response.headers['content-type']).message, secrets);
    throw new GatechatError(`the gateway answered with invalid JSON${summary ? `: ${summary.slice(0, 120)}` : ''}`, ExitCode.server);
  }
  let sawError = false;
  for (const event of protocol.parseResponse(parsed)) {
    if (event.type === 'error') {
      if (!sawError) logBody(log, text);
      sawError = true;
    }
    if (onEvent) onEvent(redactError(event, secrets));
    else yield redactError(event, secrets);
  }
  return sawError ? 'error' : 'end_marker';
}

/** A proxy's HTML page with status 200 is not an answer (exit 6), and is summarised, not dumped. */
async function htmlAnswerError(response: HttpResponse, log: ((line: string) => void) | undefined): Promise<HttpError> {
  const text = await response.text().catch(() => '');
  logBody(log, text);
  const summary = describeErrorBody(text, response.headers['content-type']).message || 'HTML page';
  return new HttpError(
    { status: response.status, gatewayMessage: summary, code: null, type: null, param: null, requestId: response.requestId },
    `gateway error: HTTP ${response.status} with an HTML page instead of an answer: ${summary}`,
    'check the base URL: gatechat config get base-url',
  );
}
