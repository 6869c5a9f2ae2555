import type { Attachment, ChatMessage, ToolCall } from '../protocol/events.js';
import type { FinishedTurn, ToolResultEntry } from './types.js';

/**
 * What goes back to the gateway (SPEC §6): each earlier prompt and its answer exactly as far as it
 * arrived (a cancelled or interrupted answer as its partial text), then the new prompt.
 *
 * - A turn whose answer holds neither text nor tool calls (it failed, or was cancelled, before
 *   anything arrived) is not part of the context at all. It is never merged into the next prompt:
 *   sending the same prompt again must not send it twice.
 * - An answer that ended in tool calls goes back with its calls, and the prompt after it is the
 *   result of each call (role "tool" with its tool_call_id; the Messages builder turns these into
 *   tool_result blocks), so every call is answered in the message that follows it.
 * - A call the gateway sent without an id (some streams never send one) goes back with one of ours,
 *   `call_<n>`, named in its result too: gateways refuse an empty tool_call_id / tool_use_id. The
 *   numbering follows the history, so the same history always sends the same ids.
 * - Reasoning is not sent back, except that of a tool-calling answer while its tool loop runs (SPEC §15).
 * - A tool loop's follow-up turn carries one result per call (`toolResults`), failures marked as errors.
 * - A prompt's attachments (SPEC §12) go with it every time it is sent. A tool result cannot carry
 *   them, so a prompt that answers tool calls is followed by a user message with its files.
 */
export function toContextMessages(
  turns: ReadonlyArray<Pick<FinishedTurn, 'prompt' | 'result' | 'attachments' | 'toolResults' | 'replay'>>,
  prompt: string,
  attachments: Attachment[] = [],
  toolResults?: ToolResultEntry[],
  /** The first turn to send (context-fit.ts): the ones before it are left out, their call ids still counted. */
  from = 0,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const named = namingCalls(turns);
  let unanswered: ReadonlyArray<ToolCall> = [];
  const userTurn = (text: string, files: Attachment[] | undefined, results?: ToolResultEntry[]) => {
    const withFiles = files !== undefined && files.length > 0;
    if (unanswered.length === 0) messages.push(withFiles ? { role: 'user', content: text, attachments: files } : { role: 'user', content: text });
    for (const [index, call] of unanswered.entries()) {
      // A tool loop's results, matched to the calls by position (ids may have been given by us).
      const result = results?.[index];
      if (result === undefined) messages.push({ role: 'tool', tool_call_id: call.id, content: text });
      else messages.push({ role: 'tool', tool_call_id: call.id, content: result.text, ...(result.ok ? {} : { is_error: true }) });
    }
    if (unanswered.length > 0 && withFiles) messages.push({ role: 'user', content: '', attachments: files });
    // Stryker disable next-line ArrayDeclaration: every userTurn is followed by `unanswered = calls` or the return, so this value is never read
    unanswered = [];
  };
  for (const [index, { prompt: asked, result, attachments: files, toolResults: results, replay }] of turns.entries()) {
    // Whitespace alone counts as nothing: the Messages interface refuses a blank assistant text.
    if (result.text.trim() === '' && result.tool_calls.length === 0) continue;
    const calls = result.tool_calls.map(named);
    if (index < from) continue;
    userTurn(asked, files, results);
    messages.push(
      calls.length > 0
        ? { role: 'assistant', content: result.text, tool_calls: calls, ...(replay ? { reasoning: replay } : {}) }
        : { role: 'assistant', content: result.text },
    );
    unanswered = calls;
  }
  userTurn(prompt, attachments, toolResults);
  return messages;
}

/** Gives each call without an id the next free `call_<n>`, skipping ids the gateway gave other calls. */
function namingCalls(turns: ReadonlyArray<Pick<FinishedTurn, 'result'>>): (call: ToolCall) => ToolCall {
  const taken = new Set(turns.flatMap((turn) => turn.result.tool_calls.map((call) => call.id)));
  let n = 0;
  return (call) => {
    if (call.id) return call;
    n += 1;
    while (taken.has(`call_${n}`)) n += 1;
    return { ...call, id: `call_${n}` };
  };
}
