/**
 * Chat Completions wire format (OpenAI): `data: {chunk}\n\n` frames ending in `data: [DONE]`,
 * modelled on the recordings in fixtures/recorded/openai-chat/.
 */
import { cacheCounts, devCostUsd } from './billing.js';
import { joinTokens } from './text.js';
import type { Answer, Frame, ResponseContext, StreamShape } from './types.js';

export interface ChatErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | number | null };
}

export function chatError(message: string, type: string, code: string | number | null, param: string | null = null): ChatErrorEnvelope {
  return { error: { message, type, param, code } };
}

export const CHAT_STREAM_ERROR_MESSAGE = 'gatechat dev gateway: simulated mid-stream error (model error-event): upstream overloaded';
export const CHAT_ERROR_CHUNK_MESSAGE = 'gatechat dev gateway: simulated provider error inside the stream (model error-chunk)';

function data(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function chunk(ctx: ResponseContext, delta: Record<string, unknown>, finish: string | null): string {
  return data({
    id: ctx.id,
    object: 'chat.completion.chunk',
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
}

function usage(answer: Answer): Record<string, unknown> {
  const { read, write } = cacheCounts(answer);
  return {
    prompt_tokens: answer.inputTokens,
    completion_tokens: answer.outputTokens,
    total_tokens: answer.inputTokens + answer.outputTokens,
    // OpenRouter's forms of the cache counts and of its own cost figure.
    ...(read > 0 || write > 0 ? { prompt_tokens_details: { cached_tokens: read, ...(write > 0 ? { cache_write_tokens: write } : {}) } } : {}),
    ...(answer.reportCost === 'usage' ? { cost: devCostUsd(answer) } : {}),
  };
}

/** The frames of a streamed answer; `token` frames are the ones faults count. */
export function* chatStream(answer: Answer, ctx: ResponseContext, shape: StreamShape): Generator<Frame> {
  const tool = answer.tool;
  yield {
    data: chunk(
      ctx,
      tool
        ? { role: 'assistant', content: null, tool_calls: [{ index: 0, id: tool.id, type: 'function', function: { name: tool.name, arguments: '' } }] }
        : { role: 'assistant', content: '' },
      null,
    ),
    token: false,
  };
  const deltas: Iterable<Record<string, unknown>> = (function* () {
    for (let i = 0; i < answer.reasoning.count; i++) yield { reasoning_content: answer.reasoning.at(i) };
    for (let i = 0; i < answer.text.count; i++) yield { content: answer.text.at(i) };
    for (const fragment of tool?.fragments ?? []) yield { tool_calls: [{ index: 0, function: { arguments: fragment } }] };
  })();
  let sent = 0;
  for (const delta of deltas) {
    if (shape.midStreamError && sent === shape.midStreamError.after) {
      yield* chatMidStreamError(ctx, shape.midStreamError.kind);
      return;
    }
    yield { data: chunk(ctx, delta, null), token: true };
    sent++;
  }
  yield { data: chunk(ctx, {}, answer.finish), token: false };
  if (shape.includeUsage) {
    yield {
      data: data({ id: ctx.id, object: 'chat.completion.chunk', created: ctx.created, model: ctx.model, choices: [], usage: usage(answer) }),
      token: false,
    };
  }
  if (!shape.omitEndMarker) yield { data: 'data: [DONE]\n\n', token: false };
}

function* chatMidStreamError(ctx: ResponseContext, kind: 'event' | 'chunk'): Generator<Frame> {
  if (kind === 'event') {
    // As groq sends it: an `event: error` message, then the stream ends without [DONE].
    yield { data: `event: error\n${data({ error: { message: CHAT_STREAM_ERROR_MESSAGE, type: 'server_error', code: 'overloaded' } })}`, token: false };
    return;
  }
  // As OpenRouter sends it: a chunk with a top-level `error`, then [DONE] as usual.
  yield {
    data: data({
      id: ctx.id,
      object: 'chat.completion.chunk',
      created: ctx.created,
      model: ctx.model,
      choices: [],
      error: { code: 502, message: CHAT_ERROR_CHUNK_MESSAGE },
    }),
    token: false,
  };
  yield { data: 'data: [DONE]\n\n', token: false };
}

/** The non-streamed `chat.completion` object. */
export function chatBody(answer: Answer, ctx: ResponseContext): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.tool ? null : joinTokens(answer.text) };
  if (answer.reasoning.count > 0) message.reasoning_content = joinTokens(answer.reasoning);
  if (answer.tool) {
    message.tool_calls = [{ id: answer.tool.id, type: 'function', function: { name: answer.tool.name, arguments: answer.tool.arguments } }];
  }
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, finish_reason: answer.finish }],
    usage: usage(answer),
  };
}

/** Non-stream counterparts of the in-stream faults (see docs/dev-gateway.md). */
export function chatErrorChunkBody(ctx: ResponseContext): Record<string, unknown> {
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    choices: [],
    error: { code: 502, message: CHAT_ERROR_CHUNK_MESSAGE },
  };
}
