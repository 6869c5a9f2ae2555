import type { Api } from './types.js';
import { contentText } from './text.js';

// The dev gateway's `agent` model (SPEC §15): enough of a tool-using model to drive gatechat's tool
// loop offline. With a user turn last it calls a tool; with tool results last it reports them. On
// Messages it behaves like a thinking model: each tool-calling answer carries a signed thinking
// block, and a follow-up that dropped it is refused with the vendor's words.

type Message = Record<string, unknown>;
const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);

export const AGENT_THINKING = 'I should use a tool for this.';

/** The results the last message carries (Chat: trailing role:"tool" messages; Messages: tool_result blocks), or null. */
export function trailingToolResults(api: Api, messages: unknown[]): string[] | null {
  if (api === 'chat') {
    const results: string[] = [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (!isObject(m) || m.role !== 'tool') break;
      results.unshift(contentText(m.content));
    }
    return results.length > 0 ? results : null;
  }
  const last = messages[messages.length - 1];
  if (!isObject(last) || last.role !== 'user' || !Array.isArray(last.content)) return null;
  const results = last.content.filter((b): b is Message => isObject(b) && b.type === 'tool_result').map((b) => contentText(b.content));
  return results.length > 0 ? results : null;
}

/** `call <tool> <json args>` in the prompt, else the first tool with {}. */
export function agentCall(prompt: string, toolNames: string[]): { name: string; args: string } | null {
  const m = prompt.match(/\bcall\s+([A-Za-z0-9_-]+)\s*(\{[\s\S]*\})?/);
  if (m && toolNames.includes(m[1])) {
    let args = '{}';
    if (m[2] !== undefined) {
      try {
        args = JSON.stringify(JSON.parse(m[2]));
      } catch {
        args = '{}';
      }
    }
    return { name: m[1], args };
  }
  return toolNames.length > 0 ? { name: toolNames[0], args: '{}' } : null;
}

/** Messages: an assistant turn with tool_use must begin with its thinking block (the vendor's 400 otherwise). */
export function lostThinking(messages: unknown[]): { message: string; param: string } | null {
  for (const [index, m] of messages.entries()) {
    if (!isObject(m) || m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    const first = m.content[0];
    const hasToolUse = m.content.some((b) => isObject(b) && b.type === 'tool_use');
    if (!hasToolUse) continue;
    if (isObject(first) && (first.type === 'thinking' || first.type === 'redacted_thinking')) continue;
    const found = isObject(first) && typeof first.type === 'string' ? first.type : 'text';
    return {
      message: `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). To avoid this requirement, disable \`thinking\`.`,
      param: `messages.${index}.content.0.type`,
    };
  }
  return null;
}

/** Names of the request's tools, in either interface's form. */
export function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.flatMap((t) => {
    if (!isObject(t)) return [];
    const fn = isObject(t.function) ? t.function : t;
    return typeof fn.name === 'string' ? [fn.name] : [];
  });
}

/** How many tool results the history holds (agent-N counts them). */
export function toolResultCount(api: Api, messages: unknown[]): number {
  let count = 0;
  for (const m of messages) {
    if (!isObject(m)) continue;
    if (api === 'chat' && m.role === 'tool') count++;
    if (api === 'messages' && Array.isArray(m.content)) count += m.content.filter((b) => isObject(b) && b.type === 'tool_result').length;
  }
  return count;
}

/** The text of the latest user message that is not only tool results: what `call <tool> …` is read from. */
export function firstUserText(api: Api, messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isObject(m) || m.role !== 'user') continue;
    if (api === 'messages' && Array.isArray(m.content) && m.content.every((b) => isObject(b) && b.type === 'tool_result')) continue;
    return contentText(m.content);
  }
  return '';
}
