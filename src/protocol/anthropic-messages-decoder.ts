import { messagesCacheTokens, usageCost } from './cost.js';
import type { ChatEvent, SseMessage, Termination } from './events.js';
import { DecoderBase, errorEvent, objectData, type ProtocolDecoder } from './decoder-support.js';
import { normalizeFinishReason } from './finish-reason.js';
import { isRecord, nonEmptyString, parseToolArguments, tryParseJson, type JsonObject } from './json.js';

/** Content blocks we track; server tools and redacted thinking are read past, never surfaced. */
type Block =
  | { kind: 'text' }
  | { kind: 'thinking'; parts: string[]; signature: string }
  | { kind: 'redacted'; data: unknown }
  | { kind: 'tool_use'; id: string; name: string; json: string[]; initial: unknown }
  | { kind: 'ignored' };

/** Messages SSE → ChatEvents. Dispatches on `data.type`: some gateways send no `event:` lines. */
class MessagesDecoder extends DecoderBase {
  readonly #blocks = new Map<number, Block>();
  #usage: JsonObject = {};
  #stopReason: string | null = null;

  push(message: SseMessage): ChatEvent[] {
    if (this.isEnded) return [];
    if (message.data.trim() === '') return [];
    if (message.event === 'error') {
      // An error event is an error whatever its payload looks like (whatever `type` its object names);
      // never skip it as malformed.
      const parsed = tryParseJson(message.data);
      this.sawError = true;
      return [errorEvent(parsed.ok ? parsed.value : message.data)];
    }
    const data = objectData(message, this.warningLog);
    if (!data) return [];
    const type = typeof data.type === 'string' ? data.type : message.event;
    return this.#dispatch(type, data);
  }

  finish(): { events: ChatEvent[]; termination: Termination } {
    // Flush tool_use blocks a cut stream never closed, so the partial answer is complete as far as it went.
    const events: ChatEvent[] = [];
    for (const index of [...this.#blocks.keys()].sort((a, b) => a - b)) {
      const call = this.#closeBlock(index);
      if (call !== null) events.push(call);
    }
    return { events, termination: this.#termination() };
  }

  #termination(): Termination {
    if (this.sawError) return 'error';
    if (this.isEnded) return 'end_marker';
    if (this.#stopReason !== null) return 'finish_then_eof';
    return 'truncated';
  }

  #dispatch(type: string | undefined, data: JsonObject): ChatEvent[] {
    switch (type) {
      case 'message_start':
        return this.#messageStart(data);
      case 'content_block_start':
        return this.#blockStart(data);
      case 'content_block_delta':
        return this.#blockDelta(data);
      case 'content_block_stop': {
        // Stryker disable next-line ConditionalExpression: equivalent — blocks are only stored under number indexes, so get() of any other index finds none
        const call = typeof data.index === 'number' ? this.#closeBlock(data.index) : null;
        return call === null ? [] : [call];
      }
      case 'message_delta':
        return this.#messageDelta(data);
      case 'message_stop':
        this.isEnded = true;
        return [];
      case 'error':
        this.sawError = true;
        return [errorEvent(data)];
      default:
        // `ping` and event types added after this was written.
        return [];
    }
  }

  #messageStart(data: JsonObject): ChatEvent[] {
    const events: ChatEvent[] = [];
    const message = isRecord(data.message) ? data.message : {};
    const model = nonEmptyString(message.model);
    if (model !== null && !this.sawModel) {
      this.sawModel = true;
      events.push({ type: 'model', model });
    }
    if (isRecord(message.usage)) events.push(this.#mergeUsage(message.usage));
    return events;
  }

  #blockStart(data: JsonObject): ChatEvent[] {
    if (typeof data.index !== 'number') return [];
    const block = isRecord(data.content_block) ? data.content_block : {};
    switch (block.type) {
      case 'text': {
        // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent — a text block's record is only read for its kind, and no kind but thinking/redacted/tool_use is acted on
        this.#blocks.set(data.index, { kind: 'text' });
        const text = nonEmptyString(block.text);
        return text === null ? [] : [{ type: 'text', delta: text }];
      }
      case 'thinking': {
        const thinking = nonEmptyString(block.thinking);
        this.#blocks.set(data.index, {
          kind: 'thinking',
          // Stryker disable next-line ConditionalExpression: equivalent — [null] joins to '' just as [] does
          parts: thinking === null ? [] : [thinking],
          signature: typeof block.signature === 'string' ? block.signature : '',
        });
        return thinking === null ? [] : [{ type: 'reasoning', delta: thinking }];
      }
      case 'redacted_thinking':
        this.#blocks.set(data.index, { kind: 'redacted', data: block.data });
        return [];
      case 'tool_use':
        this.#blocks.set(data.index, {
          kind: 'tool_use',
          id: typeof block.id === 'string' ? block.id : '',
          name: typeof block.name === 'string' ? block.name : '',
          json: [],
          initial: block.input,
        });
        return [];
      default:
        // server_tool_use / web_search_tool_result run on the server: not ours to call.
        // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent — as for text: the record only has to replace whatever the index held
        this.#blocks.set(data.index, { kind: 'ignored' });
        return [];
    }
  }

  #blockDelta(data: JsonObject): ChatEvent[] {
    const delta = isRecord(data.delta) ? data.delta : {};
    // Stryker disable next-line ConditionalExpression: equivalent — blocks are only stored under number indexes, so get() of any other index finds none
    const block = typeof data.index === 'number' ? this.#blocks.get(data.index) : undefined;
    switch (delta.type) {
      case 'text_delta':
        return typeof delta.text === 'string' && delta.text !== '' ? [{ type: 'text', delta: delta.text }] : [];
      case 'thinking_delta':
        if (typeof delta.thinking !== 'string' || delta.thinking === '') return [];
        if (block?.kind === 'thinking') block.parts.push(delta.thinking);
        return [{ type: 'reasoning', delta: delta.thinking }];
      case 'signature_delta':
        if (block?.kind === 'thinking' && typeof delta.signature === 'string') block.signature += delta.signature;
        return [];
      case 'input_json_delta':
        if (block?.kind === 'tool_use' && typeof delta.partial_json === 'string') block.json.push(delta.partial_json);
        return [];
      default:
        // signature_delta, citations_delta: nothing a reader sees.
        return [];
    }
  }

  #closeBlock(index: number): ChatEvent | null {
    const block = this.#blocks.get(index);
    this.#blocks.delete(index);
    if (block?.kind === 'thinking') {
      return { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: block.parts.join(''), signature: block.signature } };
    }
    if (block?.kind === 'redacted') return { type: 'reasoning', delta: '', block: { type: 'redacted_thinking', data: block.data } };
    if (block?.kind !== 'tool_use') return null;
    // Without any input_json_delta the start block's `input` is the whole input.
    const args = block.json.length > 0 ? parseToolArguments(block.json.join('')) : (block.initial ?? {});
    return { type: 'tool_call', id: block.id, name: block.name, arguments: args };
  }

  #messageDelta(data: JsonObject): ChatEvent[] {
    const events: ChatEvent[] = [];
    // Compatible providers report the real input_tokens only here; non-null values win.
    if (isRecord(data.usage)) events.push(this.#mergeUsage(data.usage));
    const delta = isRecord(data.delta) ? data.delta : {};
    const raw = nonEmptyString(delta.stop_reason);
    if (raw !== null) {
      this.#stopReason = raw;
      events.push({ type: 'finish', reason: normalizeFinishReason(raw), raw });
    }
    return events;
  }

  #mergeUsage(usage: JsonObject): ChatEvent {
    for (const [key, value] of Object.entries(usage)) {
      // Stryker disable next-line ConditionalExpression: equivalent — parsed JSON holds no undefined values
      if (value !== null && value !== undefined) this.#usage[key] = value;
    }
    return messagesUsageEvent(this.#usage);
  }
}

export function messagesUsageEvent(usage: JsonObject): ChatEvent {
  const cache = messagesCacheTokens(usage);
  const input = typeof usage.input_tokens === 'number' ? usage.input_tokens : null;
  return {
    type: 'usage',
    // Messages counts cached input apart; gatechat's input_tokens is all input on both interfaces (SPEC §16).
    input_tokens: input === null ? null : input + (cache.read ?? 0) + (cache.write ?? 0),
    output_tokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : null,
    cache_read_tokens: cache.read,
    cache_write_tokens: cache.write,
    cost: usageCost(usage),
    raw: { ...usage },
  };
}

export function createMessagesDecoder(): ProtocolDecoder {
  return new MessagesDecoder();
}
