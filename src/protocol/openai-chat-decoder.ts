import { chatCacheTokens, usageCost } from './cost.js';
import type { ChatEvent, EventSink, SseMessage, Termination } from './events.js';
import { DecoderBase, errorEvent, objectData, type ProtocolDecoder } from './decoder-support.js';
import { normalizeFinishReason } from './finish-reason.js';
import { isRecord, nonEmptyString, parseToolArguments, tryParseJson, type JsonObject } from './json.js';

interface PendingToolCall {
  id: string;
  name: string;
  args: string[];
}

/** Chat Completions SSE → ChatEvents, tolerant of every quirk in fixtures/recorded/openai-chat. */
class ChatDecoder extends DecoderBase {
  // Keyed by the delta's `index`, not its array position: gateways start at 1 or skip numbers.
  readonly #tools = new Map<number, PendingToolCall>();
  #toolsFlushed = false;
  #finishRaw: string | null = null;

  push(message: SseMessage): ChatEvent[] {
    const events: ChatEvent[] = [];
    this.pushTo(message, events);
    return events;
  }

  override pushTo(message: SseMessage, events: EventSink): void {
    // Once [DONE] arrived the client stops reading; anything after it is not part of the answer.
    if (this.isEnded) return;
    const data = message.data.trim();
    if (data === '[DONE]') {
      this.isEnded = true;
      for (const event of this.#flushTools()) events.push(event);
      return;
    }
    if (message.event === 'error') {
      this.sawError = true;
      const parsed = tryParseJson(message.data);
      events.push(errorEvent(parsed.ok ? parsed.value : message.data));
      return;
    }
    if (data === '') return;
    const chunk = objectData(message, this.warningLog);
    if (chunk) this.#chunk(chunk, events);
  }

  finish(): { events: ChatEvent[]; termination: Termination } {
    const events = this.#flushTools();
    return { events, termination: this.#termination() };
  }

  #termination(): Termination {
    if (this.sawError) return 'error';
    if (this.isEnded) return 'end_marker';
    if (this.#finishRaw !== null) return 'finish_then_eof';
    return 'truncated';
  }

  #chunk(chunk: JsonObject, events: EventSink): void {
    if (!this.sawModel) {
      const model = nonEmptyString(chunk.model);
      if (model !== null) {
        this.sawModel = true;
        events.push({ type: 'model', model });
      }
    }
    // OpenRouter puts `error` next to normal fields (and usage) in the same chunk: read both.
    if (chunk.error !== undefined && chunk.error !== null) {
      this.sawError = true;
      events.push(errorEvent(chunk.error));
    }
    const choices = chunk.choices;
    if (Array.isArray(choices)) {
      // Indexed, not for-of: no iterator per event.
      for (let i = 0; i < choices.length; i++) {
        const choice: unknown = choices[i];
        if (isRecord(choice)) this.#choice(choice, events);
      }
    }
    // Usage may ride on any chunk (also `choices: []`); a later `usage: null` must not erase it.
    const usage = chunk.usage;
    if (usage !== undefined && usage !== null && isRecord(usage)) events.push(usageEvent(usage));
  }

  #choice(choice: JsonObject, events: EventSink): void {
    const delta = choice.delta;
    if (isRecord(delta)) {
      pushContent(delta, events);
      if (Array.isArray(delta.tool_calls)) {
        for (const fragment of delta.tool_calls) {
          if (isRecord(fragment)) this.#toolFragment(fragment);
        }
      }
    }
    const raw = choice.finish_reason;
    // Some gateways repeat the finish chunk; one event per change is enough. (Most chunks say null.)
    if (typeof raw === 'string' && raw !== '' && raw !== this.#finishRaw) {
      this.#finishRaw = raw;
      events.push({ type: 'finish', reason: normalizeFinishReason(raw), raw });
    }
  }

  #toolFragment(fragment: JsonObject): void {
    const index = typeof fragment.index === 'number' ? fragment.index : this.#tools.size;
    let call = this.#tools.get(index);
    if (call === undefined) {
      call = { id: '', name: '', args: [] };
      this.#tools.set(index, call);
    }
    // ids and names are set, never concatenated: providers repeat them (or send "") on continuations.
    const id = nonEmptyString(fragment.id);
    if (id !== null) call.id = id;
    const fn = isRecord(fragment.function) ? fragment.function : {};
    const name = nonEmptyString(fn.name);
    if (name !== null) call.name = name;
    if (typeof fn.arguments === 'string') call.args.push(fn.arguments);
  }

  #flushTools(): ChatEvent[] {
    if (this.#toolsFlushed || this.#tools.size === 0) return [];
    this.#toolsFlushed = true;
    const events: ChatEvent[] = [...this.#tools.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({
        type: 'tool_call',
        id: call.id,
        name: call.name,
        arguments: parseToolArguments(call.args.join('')),
      }));
    // Some providers (kimi-k2 via Novita) never send a finish_reason after tool calls.
    if (this.#finishRaw === null && this.isEnded && !this.sawError) {
      events.push({ type: 'finish', reason: 'tool_calls', raw: null });
    }
    return events;
  }
}

export function usageEvent(usage: JsonObject): ChatEvent {
  const cache = chatCacheTokens(usage);
  return {
    type: 'usage',
    input_tokens: typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : null,
    output_tokens: typeof usage.completion_tokens === 'number' ? usage.completion_tokens : null,
    cache_read_tokens: cache.read,
    cache_write_tokens: cache.write,
    cost: usageCost(usage),
    raw: usage,
  };
}

/**
 * Reasoning and text from a stream `delta` or a non-stream `message` (same fields): reasoning arrives
 * as `reasoning_content` (DeepSeek, xAI) or `reasoning` (OpenRouter, Cerebras); explicit nulls are skipped.
 */
export function pushContent(part: JsonObject, events: EventSink): void {
  // Each field read once, without a list of keys to loop over: this runs for every event of a stream.
  const reasoningContent = part.reasoning_content;
  if (typeof reasoningContent === 'string' && reasoningContent !== '') events.push({ type: 'reasoning', delta: reasoningContent });
  const reasoning = part.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') events.push({ type: 'reasoning', delta: reasoning });
  const content = part.content;
  if (typeof content === 'string' && content !== '') events.push({ type: 'text', delta: content });
}

export function createChatDecoder(): ProtocolDecoder {
  return new ChatDecoder();
}
