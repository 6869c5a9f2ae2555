import { withExtraBody, type ChatEvent, type ChatMessage, type RequestOptions } from './events.js';
import { errorEvent } from './decoder-support.js';
import { normalizeFinishReason } from './finish-reason.js';
import { isRecord, nonEmptyString, parseToolArguments, type JsonObject } from './json.js';
import { pushContent, usageEvent } from './openai-chat-decoder.js';
import { chatUserContent } from './attachment-parts.js';
import { chatSchemaFields } from './schema.js';
import { breakpointsOf, cachedSystem, cachedUserContent, chatModelTakesBreakpoints, type Breakpoints } from './prompt-cache.js';

export { createChatDecoder } from './openai-chat-decoder.js';

function toolArgumentsString(args: unknown): string {
  // Arguments that were not valid JSON were kept as the model's string: send them back verbatim.
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

/** `cache`: the breakpoints of `--cache` (SPEC §16), for the models that take them. */
function wireMessage(m: ChatMessage, index: number, cache: Breakpoints | null): JsonObject {
  switch (m.role) {
    case 'system':
      return { role: m.role, content: m.content };
    case 'user':
      return { role: 'user', content: cache ? cachedUserContent(m, 'chat', index, cache) : chatUserContent(m) };
    case 'assistant':
      if (m.tool_calls === undefined || m.tool_calls.length === 0) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        // null rather than "": gateways in front of Anthropic reject empty text blocks.
        content: m.content === '' ? null : m.content,
        // Inside a tool loop a thinking model wants its reasoning back on the call's message (SPEC §15).
        ...(m.reasoning?.text ? { reasoning_content: m.reasoning.text } : {}),
        tool_calls: m.tool_calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: toolArgumentsString(c.arguments) },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content };
    default: {
      const never: never = m.role;
      return never;
    }
  }
}

/** SPEC §5.3 Chat Completions body. Key order: model, messages, then the options. */
export function buildChatRequest(opts: RequestOptions): Record<string, unknown> {
  const cache = opts.cache && chatModelTakesBreakpoints(opts.model) ? breakpointsOf(opts.messages) : null;
  const messages: JsonObject[] = [];
  if (opts.system !== undefined) messages.push({ role: 'system', content: cache ? cachedSystem(opts.system) : opts.system });
  for (const [index, m] of opts.messages.entries()) messages.push(wireMessage(m, index, cache));
  const body: Record<string, unknown> = { model: opts.model, messages };
  if (opts.temperature !== undefined) body.temperature = opts.temperature;
  if (opts.maxTokens !== undefined) body[opts.maxTokensField] = opts.maxTokens;
  body.stream = opts.stream;
  if (opts.stream) body.stream_options = { include_usage: true };
  if (opts.tools !== undefined && opts.tools.length > 0) body.tools = opts.tools;
  if (opts.schema !== undefined) Object.assign(body, chatSchemaFields(opts.schema));
  return withExtraBody(body, opts.extraBody);
}

/** A non-streamed `chat.completion` body → the same events a stream would have produced. */
export function parseChatResponse(body: unknown): ChatEvent[] {
  if (!isRecord(body)) return [errorEvent('response body is not a JSON object')];
  if (body.error !== undefined && body.error !== null) return [errorEvent(body)];
  const events: ChatEvent[] = [];
  const model = nonEmptyString(body.model);
  if (model !== null) events.push({ type: 'model', model });
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  pushContent(message, events);
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call)) continue;
      const fn = isRecord(call.function) ? call.function : {};
      events.push({
        type: 'tool_call',
        id: typeof call.id === 'string' ? call.id : '',
        name: typeof fn.name === 'string' ? fn.name : '',
        arguments: typeof fn.arguments === 'string' ? parseToolArguments(fn.arguments) : (fn.arguments ?? {}),
      });
    }
  }
  if (isRecord(body.usage)) events.push(usageEvent(body.usage));
  const raw = nonEmptyString(choice.finish_reason);
  if (raw !== null) events.push({ type: 'finish', reason: normalizeFinishReason(raw), raw });
  return events;
}
