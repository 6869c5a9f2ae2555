import { withExtraBody, type ChatEvent, type ChatMessage, type RequestOptions, type ToolCall, type ToolDefinition } from './events.js';
import { messagesUsageEvent } from './anthropic-messages-decoder.js';
import { errorEvent } from './decoder-support.js';
import { normalizeFinishReason } from './finish-reason.js';
import { isRecord, nonEmptyString, tryParseJson, type JsonObject } from './json.js';
import { messagesUserContent } from './attachment-parts.js';
import { messagesSchemaFields } from './schema.js';
import { breakpointsOf, cachedSystem, cachedUserContent, type Breakpoints } from './prompt-cache.js';

export { createMessagesDecoder } from './anthropic-messages-decoder.js';

/** The Messages interface requires max_tokens; SPEC §5.3 default. */
export const DEFAULT_MAX_TOKENS = 4096;

/** tool_use.input must be an object; arguments kept as an unparseable string cannot be one. */
function toolInput(args: unknown): JsonObject {
  if (isRecord(args)) return args;
  // Stryker disable next-line ConditionalExpression: equivalent — JSON.parse of a non-string (a number, null, a list) never yields an object here, and undefined fails to parse: {} either way
  if (typeof args === 'string') {
    const parsed = tryParseJson(args);
    if (parsed.ok && isRecord(parsed.value)) return parsed.value;
  }
  return {};
}

/** What the Messages interface accepts as a tool_use id. */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * The ids of one request's tool_use blocks and tool_results. A conversation begun over Chat Completions
 * can carry ids the Messages interface refuses (Kimi sends `functions.get_weather:0`): those get their
 * invalid characters replaced, made unique within the request, and each call and its result the same one.
 */
function toolUseIds(): (id: string) => string {
  const given = new Map<string, string>();
  const used = new Set<string>();
  return (id) => {
    let safe = given.get(id);
    if (safe !== undefined) return safe;
    const base = TOOL_USE_ID.test(id) ? id : id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu';
    safe = base;
    for (let n = 2; used.has(safe); n++) safe = `${base}_${n}`;
    given.set(id, safe);
    used.add(safe);
    return safe;
  };
}

function convertTool(tool: ToolDefinition): JsonObject {
  const out: JsonObject = { name: tool.function.name };
  if (tool.function.description !== undefined) out.description = tool.function.description;
  out.input_schema = tool.function.parameters ?? { type: 'object', properties: {} };
  return out;
}

/**
 * Chat-form history → Messages turns. System text goes to the top-level `system`; consecutive
 * tool results are merged into one user turn, because every tool_use of an assistant turn must be
 * answered in the single user turn that follows it. `cache`: the breakpoints of `--cache` (SPEC §16).
 */
function convertMessages(messages: ChatMessage[], cache: Breakpoints | null): { system: string[]; turns: JsonObject[] } {
  const system: string[] = [];
  const turns: JsonObject[] = [];
  const toolUseId = toolUseIds();
  for (const [index, m] of messages.entries()) {
    switch (m.role) {
      case 'system':
        system.push(m.content);
        break;
      case 'user':
        // Stryker disable next-line StringLiteral: equivalent — cachedUserContent builds Messages parts for any interface name but 'chat'
        turns.push({ role: 'user', content: cache ? cachedUserContent(m, 'messages', index, cache) : messagesUserContent(m) });
        break;
      case 'assistant': {
        if (m.tool_calls === undefined || m.tool_calls.length === 0) {
          turns.push({ role: 'assistant', content: m.content });
          break;
        }
        // Inside a tool loop the turn's thinking blocks go back verbatim, first (SPEC §15).
        const blocks: JsonObject[] = [...((m.reasoning?.blocks ?? []) as JsonObject[])];
        if (m.content !== '') blocks.push({ type: 'text', text: m.content });
        for (const call of m.tool_calls) blocks.push({ type: 'tool_use', id: toolUseId(call.id), name: call.name, input: toolInput(call.arguments) });
        turns.push({ role: 'assistant', content: blocks });
        break;
      }
      case 'tool': {
        const block: JsonObject = { type: 'tool_result', tool_use_id: toolUseId(m.tool_call_id ?? ''), content: m.content };
        if (m.is_error) block.is_error = true;
        const last = turns[turns.length - 1];
        // Only user turns can hold tool results (an assistant turn's parts always include its tool_use blocks), so
        // the role check is a guard for readers, not for behaviour.
        // Stryker disable next-line ConditionalExpression: equivalent — see above (last.role === 'user' → true)
        if (last !== undefined && last.role === 'user' && Array.isArray(last.content) && isToolResults(last.content)) {
          last.content.push(block);
        } else {
          turns.push({ role: 'user', content: [block] });
        }
        break;
      }
      // Stryker disable next-line ConditionalExpression,BlockStatement: unreachable — the type checker proves every role is handled above
      default: {
        const never: never = m.role;
        return never;
      }
    }
  }
  return { system, turns };
}

function isToolResults(content: unknown[]): boolean {
  // Stryker disable next-line MethodExpression: equivalent — a user turn's parts are either all tool results or none (attachments and text)
  return content.every((b) => isRecord(b) && b.type === 'tool_result');
}

/**
 * SPEC §5.3 Messages body. `stream` is always sent as a boolean so the body says plainly which
 * response shape we expect, as the Chat Completions body does.
 */
export function buildMessagesRequest(opts: RequestOptions): Record<string, unknown> {
  const cache = opts.cache ? breakpointsOf(opts.messages) : null;
  const { system, turns } = convertMessages(opts.messages, cache);
  if (opts.system !== undefined) system.unshift(opts.system);
  const body: Record<string, unknown> = {
    model: opts.model,
    max_tokens: opts.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages: turns,
  };
  if (system.length > 0) body.system = cache ? cachedSystem(system.join('\n\n')) : system.join('\n\n');
  if (opts.temperature !== undefined) body.temperature = opts.temperature;
  body.stream = opts.stream;
  // --schema forces its own single tool (the flags refuse --tools beside it).
  if (opts.schema !== undefined) Object.assign(body, messagesSchemaFields(opts.schema));
  else if (opts.tools !== undefined && opts.tools.length > 0) body.tools = opts.tools.map(convertTool);
  return withExtraBody(body, opts.extraBody);
}

/** A non-streamed `message` body → the same events a stream would have produced. */
export function parseMessagesResponse(body: unknown): ChatEvent[] {
  if (!isRecord(body)) return [errorEvent('response body is not a JSON object')];
  if (body.type === 'error' || (body.error !== undefined && body.error !== null)) return [errorEvent(body)];
  const events: ChatEvent[] = [];
  const model = nonEmptyString(body.model);
  if (model !== null) events.push({ type: 'model', model });
  // Stryker disable next-line ArrayDeclaration: equivalent — a non-block entry in the list is skipped like no entry
  const content = Array.isArray(body.content) ? body.content : [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
      events.push({ type: 'text', delta: block.text });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      if (block.thinking !== '') events.push({ type: 'reasoning', delta: block.thinking });
      events.push({ type: 'reasoning', delta: '', block: { type: 'thinking', thinking: block.thinking, signature: typeof block.signature === 'string' ? block.signature : '' } });
    } else if (block.type === 'redacted_thinking') {
      events.push({ type: 'reasoning', delta: '', block: { type: 'redacted_thinking', data: block.data } });
    } else if (block.type === 'tool_use') {
      events.push({
        type: 'tool_call',
        id: typeof block.id === 'string' ? block.id : '',
        name: typeof block.name === 'string' ? block.name : '',
        arguments: block.input ?? {},
      });
    }
  }
  if (isRecord(body.usage)) events.push(messagesUsageEvent(body.usage));
  const raw = nonEmptyString(body.stop_reason);
  if (raw !== null) events.push({ type: 'finish', reason: normalizeFinishReason(raw), raw });
  return events;
}
