import type { FinishedTurn } from './types.js';

// SPEC §17 `/compact` and `history compact`: the model summarises the conversation so far, and later
// requests send that summary in place of the turns it covers. Pure: what is asked, where the summary
// goes, which turns it may cover. conversation.ts runs the request and the store keeps the record.
//
// Where the summary goes: after the system prompt, as a paragraph of its own. Both interfaces take a
// system text (Chat Completions a `system` message, Messages the top-level `system`), while a made-up
// user/assistant pair would put words in the user's mouth, and on Messages would have to keep the
// user-first alternation and tool-call pairing with whatever turn comes next. The system prompt the
// user set is left as it is (and saved as it is): the summary is added only to what is sent.

/** What the model is asked, after the turns it summarises. */
export const SUMMARY_INSTRUCTION =
  'Summarise the conversation so far, so that it can go on from the summary alone: what the user wants, ' +
  'the facts, names, numbers, decisions, code and files that came up, what was settled and what is still open, ' +
  'in the order they came up. Write it as notes for yourself; answer with the summary only.';

/** How the summary is introduced in the system text of later requests. */
export const SUMMARY_LEAD = 'Summary of the earlier conversation:';

/** The user's instructions (`/compact keep the numbers`) follow the fixed one. */
export function compactionPrompt(instructions: string): string {
  const extra = instructions.trim();
  return extra ? `${SUMMARY_INSTRUCTION}\n\nInstructions for the summary: ${extra}` : SUMMARY_INSTRUCTION;
}

/** The system text a request sends: the user's system prompt, then the summary (either may be absent). */
export function systemWithSummary(system: string | undefined, summary: string | undefined): string | undefined {
  if (summary === undefined) return system;
  const paragraph = `${SUMMARY_LEAD} ${summary}`;
  return system ? `${system}\n\n${paragraph}` : paragraph;
}

/** The summary in effect: its text and how many of the conversation's first turns it stands for. */
export interface SummaryState {
  text: string;
  covered: number;
}

/**
 * How many of the first turns a compaction now would cover: all of them, except that an answer that
 * ended in tool calls still waiting for their results stays a turn (the next prompt answers it, and a
 * result must follow its call). null: nothing new since `covered` (no turn sent back since then).
 */
export function compactionEnd(turns: ReadonlyArray<Pick<FinishedTurn, 'result'>>, covered: number): number | null {
  // Sent back in later requests (as context-fit.ts `isSent`): it holds text or tool calls.
  const sent = (turn: Pick<FinishedTurn, 'result'>) => turn.result.text.trim() !== '' || turn.result.tool_calls.length > 0;
  let end = turns.length;
  const last = turns.findLastIndex(sent);
  if (last >= 0 && turns[last]!.result.tool_calls.length > 0) end = last;
  for (let i = covered; i < end; i++) if (sent(turns[i]!)) return end;
  return null;
}
