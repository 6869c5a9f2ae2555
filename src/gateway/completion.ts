/** POST /v1/chat/completions and POST /v1/messages: validation, then the model's behaviour. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { billed, devCostUsd } from './billing.js';
import { withCacheCounts, type PromptCache } from './prompt-cache.js';
import { buildAnswer, randomId, WORDS_BEFORE_ERROR } from './answer.js';
import { sendReply, writeBody, writePartialBody, writeStream } from './engine.js';
import { BUSY_HOLD_MS, errorReply, failureFor, type FlakyCounters } from './faults.js';
import { parseModel, type ModelSpec } from './models.js';
import { jsonWithText, tokensOf } from './text.js';
import { refusedToolCalls } from './tool-pairing.js';
import { lostThinking } from './agent.js';
import type { Answer, Api, ResponseContext, StreamShape } from './types.js';
import { chatBody, chatErrorChunkBody, chatStream, CHAT_STREAM_ERROR_MESSAGE } from './wire-chat.js';
import { messagesBody, messagesError, messagesStream, MESSAGES_ERROR_CHUNK_MESSAGE } from './wire-messages.js';

export interface CompletionRequest {
  api: Api;
  body: Record<string, unknown>;
  req: IncomingMessage;
  res: ServerResponse;
  flaky: FlakyCounters;
  /** Completion requests being answered right now, this one included (busy-K). */
  inFlight: number;
  /** Aborted when the response closes (client gone, or close()). */
  signal: AbortSignal;
  headers: Record<string, string>;
  /** The gateway's simulated prompt cache (SPEC §16). */
  promptCache: PromptCache;
}

type Checked = { ok: true; spec: ModelSpec; limit: number | null } | { ok: false; status: number; message: string; param: string | null; code?: string };

function positiveInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

/** The checks a real gateway makes before any model runs (their messages mimic the vendors'). */
function check(api: Api, body: Record<string, unknown>): Checked {
  const model = body.model;
  if (typeof model !== 'string' || model === '') {
    return { ok: false, status: 400, message: api === 'chat' ? 'you must provide a model parameter' : 'model: Field required', param: 'model' };
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return { ok: false, status: 400, message: 'messages: at least one message is required', param: 'messages' };
  }
  const refused = refusedToolCalls(api, body.messages);
  if (refused) return { ok: false, status: 400, ...refused };
  const fields = api === 'chat' ? ['max_tokens', 'max_completion_tokens'] : ['max_tokens'];
  if (api === 'messages' && body.max_tokens === undefined) {
    return { ok: false, status: 400, message: 'max_tokens: Field required', param: 'max_tokens' };
  }
  for (const field of fields) {
    const value = body[field];
    if (value !== undefined && value !== null && !positiveInt(value)) {
      return { ok: false, status: 400, message: `${field}: expected a positive integer, got ${JSON.stringify(value)}`, param: field };
    }
  }
  const spec = parseModel(model);
  if (spec?.behaviour.kind === 'agent' && api === 'messages') {
    const lost = lostThinking(body.messages);
    if (lost) return { ok: false, status: 400, ...lost };
  }
  if (!spec) {
    const message =
      api === 'chat' ? `The model \`${model}\` does not exist or you do not have access to it.` : `model: ${model}`;
    return { ok: false, status: 404, message, param: null, code: 'model_not_found' };
  }
  const limit = (body.max_completion_tokens ?? body.max_tokens ?? null) as number | null;
  return { ok: true, spec, limit };
}

function streamShape(api: Api, spec: ModelSpec, body: Record<string, unknown>): StreamShape {
  const options = body.stream_options as Record<string, unknown> | undefined;
  const kind = spec.behaviour.kind;
  return {
    includeUsage: api === 'chat' && options?.include_usage === true,
    omitEndMarker: kind === 'no-done',
    midStreamError:
      kind === 'error-event' || kind === 'error-chunk' ? { after: WORDS_BEFORE_ERROR, kind: kind === 'error-event' ? 'event' : 'chunk' } : null,
  };
}

function acceptsGzip(req: IncomingMessage): boolean {
  return /\bgzip\b/i.test(String(req.headers['accept-encoding'] ?? ''));
}

export async function handleCompletion(r: CompletionRequest): Promise<void> {
  const { api, body, res } = r;
  const checked = check(api, body);
  if (!checked.ok) {
    return sendReply(res, errorReply(api, checked.status, checked.message, { param: checked.param, code: checked.code, headers: r.headers }));
  }
  const { spec, limit } = checked;
  // Decided on arrival (busy-K counts the requests in flight now), answered after the hold.
  const failure = failureFor(api, spec, body, r.flaky, r.inFlight);
  if (spec.behaviour.kind === 'busy') {
    try {
      await sleep(BUSY_HOLD_MS, undefined, { signal: r.signal });
    } catch {
      return; // client gone or gateway closing
    }
  }
  if (failure) return sendReply(res, { ...failure, headers: { ...failure.headers, ...r.headers } });
  const built = buildAnswer(api, spec.behaviour, body, limit);
  if (!built.ok) return sendReply(res, errorReply(api, 400, built.message, { param: built.param, headers: r.headers }));
  const ctx: ResponseContext = {
    id: randomId(api === 'chat' ? 'chatcmpl-' : 'msg_'),
    model: spec.name,
    created: Math.floor(Date.now() / 1000),
  };
  const gzip = spec.gzip && acceptsGzip(r.req);
  const answer = withCacheCounts(billed(built.answer, spec.billing), r.promptCache.account(body));
  // LiteLLM's form: the cost of the whole answer in a response header, known before the first byte.
  if (answer.reportCost === 'header') r.headers = { ...r.headers, 'x-litellm-response-cost': String(devCostUsd(answer)) };
  if (body.stream === true) return stream(r, spec, answer, ctx, gzip);
  return answerOnce(r, spec, answer, ctx, gzip);
}

function stream(r: CompletionRequest, spec: ModelSpec, answer: Answer, ctx: ResponseContext, gzip: boolean): Promise<void> {
  const b = spec.behaviour;
  const shape = streamShape(r.api, spec, r.body);
  const frames = r.api === 'chat' ? chatStream(answer, ctx, shape) : messagesStream(answer, ctx, shape);
  return writeStream(r.res, frames, {
    gzip,
    delayMs: b.kind === 'slow' ? b.delayMs : 0,
    // lorem-N and big-M are the throughput models: only the client's reading speed may pace them.
    yieldBetweenTokens: b.kind !== 'lorem' && b.kind !== 'big',
    keepaliveSeconds: b.kind === 'keepalive' ? b.seconds : 0,
    cut: b.kind === 'cut' ? { after: b.after, mode: b.mode } : null,
    headers: r.headers,
    signal: r.signal,
  });
}

async function answerOnce(r: CompletionRequest, spec: ModelSpec, answer: Answer, ctx: ResponseContext, gzip: boolean): Promise<void> {
  const { api, res, signal } = r;
  const b = spec.behaviour;
  const json = { 'content-type': 'application/json', ...r.headers };
  try {
    // A non-streamed answer takes as long as the streamed one would have.
    if (b.kind === 'slow') await sleep(b.delayMs * Math.max(0, answer.outputTokens - 1), undefined, { signal });
    if (b.kind === 'keepalive') await sleep(b.seconds * 1000, undefined, { signal });
  } catch {
    return; // client gone or gateway closing
  }
  const full = () => JSON.stringify(api === 'chat' ? chatBody(answer, ctx) : messagesBody(answer, ctx));
  switch (b.kind) {
    case 'cut':
      return writePartialBody(res, full(), { gzip, mode: b.mode, headers: r.headers });
    case 'error-event':
      // Without a stream to break, the same overload arrives as an HTTP error.
      return sendReply(
        res,
        api === 'chat'
          ? errorReply(api, 503, CHAT_STREAM_ERROR_MESSAGE, { code: 'overloaded', headers: r.headers })
          : { status: 529, headers: json, body: JSON.stringify(messagesError('overloaded_error', 'Overloaded')) },
        gzip,
      );
    case 'error-chunk': {
      // A 200 whose body is an error: some gateways answer a failed upstream this way.
      const body = api === 'chat' ? chatErrorChunkBody(ctx) : messagesError('api_error', MESSAGES_ERROR_CHUNK_MESSAGE);
      return sendReply(res, { status: 200, headers: json, body: JSON.stringify(body) }, gzip);
    }
    case 'big': {
      // Up to 1 GiB of text is more than one string can hold: the body goes out in pieces, the
      // text a delta at a time, with backpressure (chunked, no content-length).
      const marker = randomId('text-');
      const shell = { ...answer, text: tokensOf([marker]) };
      const value = api === 'chat' ? chatBody(shell, ctx) : messagesBody(shell, ctx);
      return writeBody(res, jsonWithText(value, marker, answer.text), { gzip, headers: json });
    }
    default:
      return sendReply(res, { status: 200, headers: json, body: full() }, gzip);
  }
}

/**
 * One request of a Batch API job (SPEC §19), answered whole: the status and JSON body the same
 * request would have had on its own, non-streamed. Stream faults (cuts, stalls, slow pacing) have
 * no meaning inside a batch; failures before the answer (fail-*, unknown model, bad fields) do.
 */
export function answerWhole(api: Api, body: Record<string, unknown>, flaky: FlakyCounters): { status: number; body: unknown } {
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  const checked = check(api, body);
  if (!checked.ok) return { status: checked.status, body: parse(errorReply(api, checked.status, checked.message, { param: checked.param, code: checked.code }).body) };
  const failure = failureFor(api, checked.spec, body, flaky, 1);
  if (failure) return { status: failure.status, body: parse(failure.body) };
  const built = buildAnswer(api, checked.spec.behaviour, body, checked.limit);
  if (!built.ok) return { status: 400, body: parse(errorReply(api, 400, built.message, { param: built.param }).body) };
  const ctx: ResponseContext = { id: randomId(api === 'chat' ? 'chatcmpl-' : 'msg_'), model: checked.spec.name, created: Math.floor(Date.now() / 1000) };
  const answer = billed(built.answer, checked.spec.billing);
  return { status: 200, body: api === 'chat' ? chatBody(answer, ctx) : messagesBody(answer, ctx) };
}
