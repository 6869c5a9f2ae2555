import type { Api } from './types.js';

// Real gateways refuse a history in which a tool call is not answered right after it (OpenAI and
// Anthropic both return 400). The dev gateway does the same, with their wording, so a client that
// drops or misplaces tool results fails here as it would against them.

type Message = Record<string, unknown>;

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The vendor's 400 message for the first tool call left unanswered, or null when every call is answered. */
export function unansweredToolCalls(api: Api, messages: unknown[]): { message: string; param: string } | null {
  return api === 'chat' ? chatPairing(messages) : messagesPairing(messages);
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
