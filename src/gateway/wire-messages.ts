/**
 * Messages wire format (Anthropic): `event: <type>\ndata: {json}\n\n` frames, modelled on the
 * recordings in fixtures/recorded/anthropic-messages/.
 */
import { cacheCounts, devCostUsd } from './billing.js';
import { joinTokens } from './text.js';
import type { Answer, Finish, Frame, ResponseContext, StreamShape } from './types.js';

export interface MessagesErrorEnvelope {
  type: 'error';
  error: { type: string; message: string };
}

export function messagesError(type: string, message: string): MessagesErrorEnvelope {
  return { type: 'error', error: { type, message } };
}

// Real thinking blocks carry an opaque signature the client must send back verbatim.
export const THINKING_SIGNATURE = 'Z2F0ZWNoYXQtZGV2LWdhdGV3YXk=';
export const MESSAGES_ERROR_CHUNK_MESSAGE = 'gatechat dev gateway: simulated provider error inside the stream (model error-chunk)';

export function stopReason(finish: Finish): 'end_turn' | 'max_tokens' | 'tool_use' {
  switch (finish) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    default: {
      const never: never = finish;
      return never;
    }
  }
}

function event(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

interface Block {
  start: Record<string, unknown>;
  deltas: Iterable<Record<string, unknown>>;
  /** Deltas that are not answer words (the thinking signature). */
  trailer: Record<string, unknown>[];
}

function blocksOf(answer: Answer): Block[] {
  const blocks: Block[] = [];
  const { reasoning, text, tool } = answer;
  if (reasoning.count > 0) {
    blocks.push({
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: (function* () {
        for (let i = 0; i < reasoning.count; i++) yield { type: 'thinking_delta', thinking: reasoning.at(i) };
      })(),
      trailer: [{ type: 'signature_delta', signature: THINKING_SIGNATURE }],
    });
  }
  if (tool) {
    blocks.push({
      start: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
      deltas: tool.fragments.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      trailer: [],
    });
  } else {
    blocks.push({
      start: { type: 'text', text: '' },
      deltas: (function* () {
        for (let i = 0; i < text.count; i++) yield { type: 'text_delta', text: text.at(i) };
      })(),
      trailer: [],
    });
  }
  return blocks;
}

/** The frames of a streamed answer; `token` frames are the ones faults count. */
export function* messagesStream(answer: Answer, ctx: ResponseContext, shape: StreamShape): Generator<Frame> {
  yield {
    data: event('message_start', {
      message: {
        id: ctx.id,
        type: 'message',
        role: 'assistant',
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...messagesInput(answer), output_tokens: 1 },
      },
    }),
    token: false,
  };
  let sent = 0;
  const blocks = blocksOf(answer);
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index];
    yield { data: event('content_block_start', { index, content_block: block.start }), token: false };
    if (index === 0) yield { data: event('ping', {}), token: false };
    for (const delta of block.deltas) {
      if (shape.midStreamError && sent === shape.midStreamError.after) {
        yield messagesMidStreamError(shape.midStreamError.kind);
        return;
      }
      yield { data: event('content_block_delta', { index, delta }), token: true };
      sent++;
    }
    for (const delta of block.trailer) yield { data: event('content_block_delta', { index, delta }), token: false };
    yield { data: event('content_block_stop', { index }), token: false };
  }
  yield {
    data: event('message_delta', {
      delta: { stop_reason: stopReason(answer.finish), stop_sequence: null },
      usage: { output_tokens: answer.outputTokens, ...(answer.reportCost === 'usage' ? { cost: devCostUsd(answer) } : {}) },
    }),
    token: false,
  };
  if (!shape.omitEndMarker) yield { data: event('message_stop', {}), token: false };
}

function messagesMidStreamError(kind: 'event' | 'chunk'): Frame {
  if (kind === 'event') {
    // What Anthropic documents for overload mid-stream; the stream then ends without message_stop.
    return { data: event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }), token: false };
  }
  // An error payload with no `event:` line: clients must dispatch on data.type, not the event name.
  return { data: `data: ${JSON.stringify(messagesError('api_error', MESSAGES_ERROR_CHUNK_MESSAGE))}\n\n`, token: false };
}

/** The non-streamed `message` object. */
export function messagesBody(answer: Answer, ctx: ResponseContext): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (answer.reasoning.count > 0) content.push({ type: 'thinking', thinking: joinTokens(answer.reasoning), signature: THINKING_SIGNATURE });
  if (answer.tool) {
    content.push({ type: 'tool_use', id: answer.tool.id, name: answer.tool.name, input: JSON.parse(answer.tool.arguments) });
  } else {
    content.push({ type: 'text', text: joinTokens(answer.text) });
  }
  return {
    id: ctx.id,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: stopReason(answer.finish),
    stop_sequence: null,
    usage: { ...messagesInput(answer), output_tokens: answer.outputTokens, ...(answer.reportCost === 'usage' ? { cost: devCostUsd(answer) } : {}) },
  };
}

/** Messages counts cached input apart from `input_tokens` (the fields appear only when there is some). */
function messagesInput(answer: Answer): Record<string, number> {
  const { read, write } = cacheCounts(answer);
  return {
    input_tokens: answer.inputTokens - read - write,
    ...(read > 0 || write > 0 ? { cache_read_input_tokens: read, cache_creation_input_tokens: write } : {}),
  };
}
