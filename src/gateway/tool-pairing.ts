import type { Api } from './types.js';

// Real gateways refuse a history in which a tool call is not answered right after it, or a call or
// result has an empty id (OpenAI and Anthropic both return 400). The dev gateway does the same, with
// their wording, so a client that drops, misplaces or misnames tool results fails here as it would
// against them.

type Message = Record<string, unknown>;

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The vendor's 400 message for the first tool call id they refuse, or for the first call left
 * unanswered; null when every call has a usable id and is answered.
 */
export function refusedToolCalls(api: Api, messages: unknown[]): { message: string; param: string; code?: string } | null {
  return api === 'chat' ? (chatEmptyId(messages) ?? chatPairing(messages)) : (messagesBadId(messages) ?? messagesPairing(messages));
}

// OpenAI refuses an empty string wherever it wants an id ("empty_string"), in the call and in the result.
function chatEmptyId(messages: unknown[]): { message: string; param: string; code: string } | null {
  for (const [index, m] of messages.entries()) {
    if (!isObject(m)) continue;
    const places =
      m.role === 'tool'
        ? [{ where: `messages[${index}].tool_call_id`, id: m.tool_call_id }]
        : Array.isArray(m.tool_calls)
          ? m.tool_calls.map((c, n) => ({ where: `messages[${index}].tool_calls[${n}].id`, id: isObject(c) ? c.id : undefined }))
          : [];
    const empty = places.find((place) => place.id === '');
    if (empty) {
      return {
        message: `Invalid '${empty.where}': empty string. Expected a string with minimum length 1, but got an empty string instead.`,
        param: empty.where,
        code: 'empty_string',
      };
    }
  }
  return null;
}

// Anthropic checks both ids against one pattern (so "" fails it too).
const MESSAGES_ID = /^[a-zA-Z0-9_-]+$/;

function messagesBadId(messages: unknown[]): { message: string; param: string } | null {
  for (const [index, m] of messages.entries()) {
    if (!isObject(m)) continue;
    const blocks = Array.isArray(m.content) ? m.content : [];
    for (const [n, block] of blocks.entries()) {
      if (!isObject(block)) continue;
      const field = block.type === 'tool_use' ? 'id' : block.type === 'tool_result' ? 'tool_use_id' : null;
      if (field === null || MESSAGES_ID.test(String(block[field]))) continue;
      const where = `messages.${index}.content.${n}.${block.type}.${field}`;
      return { message: `${where}: String should match pattern '^[a-zA-Z0-9_-]+$'`, param: where };
    }
  }
  return null;
}

function chatPairing(messages: unknown[]): { message: string; param: string } | null {
  let open: string[] = [];
  for (const [index, m] of messages.entries()) {
    if (!isObject(m)) continue;
    if (m.role === 'tool') {
      if (!open.includes(String(m.tool_call_id))) {
        return { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: `messages.[${index}].role` };
      }
      open = open.filter((id) => id !== m.tool_call_id);
      continue;
    }
    if (open.length > 0) return chatUnanswered(open);
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) open = m.tool_calls.filter(isObject).map((c) => String(c.id));
  }
  return open.length > 0 ? chatUnanswered(open) : null;
}

function chatUnanswered(ids: string[]): { message: string; param: string } {
  return {
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(', ')}`,
    param: 'messages',
  };
}

function blocksOf(m: Message, type: string): Message[] {
  return Array.isArray(m.content) ? m.content.filter((b): b is Message => isObject(b) && b.type === type) : [];
}

function messagesPairing(messages: unknown[]): { message: string; param: string } | null {
  for (const [index, m] of messages.entries()) {
    if (!isObject(m) || m.role !== 'assistant') continue;
    const ids = blocksOf(m, 'tool_use').map((b) => String(b.id));
    if (ids.length === 0) continue;
    const next = messages[index + 1];
    const answered = isObject(next) && next.role === 'user' ? blocksOf(next, 'tool_result').map((b) => String(b.tool_use_id)) : [];
    const missing = ids.filter((id) => !answered.includes(id));
    if (missing.length > 0) {
      return {
        message: `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        param: 'messages',
      };
    }
  }
  return null;
}
