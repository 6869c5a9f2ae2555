import type { Attachment } from '../protocol/events.js';
import type { FinishedTurn, ToolResultEntry } from './types.js';

// SPEC §17 "Fitting the context window": which earlier turns a request sends. Pure: the turns and
// the window in, the first turn to send out; conversation.ts builds the messages from there
// (context-messages.ts) and says what was left out.
//
// The size is estimated: characters ÷ 4 (plus a few tokens per message) for text, a flat figure per
// image or PDF page-ish, then scaled up by what the gateway reported for the last answer's input
// (its `input_tokens` for the turns that request covered) when that is more — a tokenizer that
// counts more tokens per character than 4 (CJK, code) is learned from its own figure. Never scaled
// down: an estimate that comes out short costs a 400, one that comes out long only an older turn.

export type ContextMode = { kind: 'auto' } | { kind: 'full' } | { kind: 'last'; turns: number };

export type FitTurn = Pick<FinishedTurn, 'prompt' | 'result' | 'attachments' | 'toolResults' | 'omittedTurns'>;

export interface FitInput {
  turns: readonly FitTurn[];
  system: string | undefined;
  prompt: string;
  attachments: readonly Attachment[];
  toolResults: readonly ToolResultEntry[] | undefined;
  /** The model's context window in tokens; undefined: unknown (only `last` mode leaves turns out). */
  window: number | undefined;
  /** The request's output limit: reserved out of the window. */
  maxTokens: number | undefined;
  mode: ContextMode;
}

export interface ContextFit {
  /** Index into `turns` of the first one to send (turns.length: none). */
  from: number;
  /** Earlier turns left out (turns that are never sent — failed before any answer — do not count). */
  omittedTurns: number;
  /** About how many tokens they held. */
  omittedTokens: number;
  /** The estimated input of the request as sent, in tokens. */
  estimate: number;
  /** true when even the least that may be sent is over the window: the gateway decides. */
  overflows: boolean;
}

/** Tokens per message beyond its text (role, separators), as the vendors' own counters add. */
const PER_MESSAGE = 4;
const IMAGE_TOKENS = 1600;
/** PDFs are sent as pages of text and images; about this many bytes make a token. */
const PDF_BYTES_PER_TOKEN = 64;
/** With no max tokens set, this much of the window is kept for the answer (and at most a quarter of it). */
export const DEFAULT_ANSWER_RESERVE = 4096;

export function textTokens(text: string): number {
  return Math.ceil(text.length / 4) + PER_MESSAGE;
}

function attachmentTokens(files: readonly Attachment[] | undefined): number {
  let total = 0;
  for (const file of files ?? []) {
    if (file.kind === 'text') total += textTokens(file.text) + textTokens(file.path);
    else if (file.kind === 'image') total += IMAGE_TOKENS;
    else total += Math.ceil(file.bytes / PDF_BYTES_PER_TOKEN);
  }
  return total;
}

/** The asking side of a turn: its prompt (or tool results) and files. */
function askTokens(turn: { prompt: string; attachments?: readonly Attachment[]; toolResults?: readonly ToolResultEntry[] }): number {
  const results = turn.toolResults ?? [];
  return (results.length > 0 ? results.reduce((n, r) => n + textTokens(r.text), 0) : textTokens(turn.prompt)) + attachmentTokens(turn.attachments);
}

function answerTokens(turn: FitTurn): number {
  const calls = turn.result.tool_calls;
  return textTokens(turn.result.text) + calls.reduce((n, call) => n + textTokens(call.name) + textTokens(JSON.stringify(call.arguments ?? {})), 0);
}

/** Sent again in later requests: it holds text or tool calls (context-messages.ts leaves the rest out). */
export function isSent(turn: FitTurn): boolean {
  return turn.result.text.trim() !== '' || turn.result.tool_calls.length > 0;
}

const calls = (turn: FitTurn) => turn.result.tool_calls.length > 0;

export function fitContext(input: FitInput): ContextFit {
  const { turns, mode } = input;
  const sent = turns.map((turn, index) => ({ turn, index })).filter(({ turn }) => isSent(turn));
  const cost = sent.map(({ turn }) => askTokens(turn) + answerTokens(turn));
  const fixed = (input.system ? textTokens(input.system) : 0) + askTokens(input);
  const scale = calibration(input);
  const sizeFrom = (p: number) => Math.ceil(scale * (fixed + cost.slice(p).reduce((a, b) => a + b, 0)));
  const fit = (p: number, overflows = false): ContextFit => ({
    from: p < sent.length ? sent[p]!.index : turns.length,
    omittedTurns: p,
    omittedTokens: Math.ceil(scale * cost.slice(0, p).reduce((a, b) => a + b, 0)),
    estimate: sizeFrom(p),
    overflows,
  });
  if (mode.kind === 'full') return fit(0);
  // A kept turn must not answer tool calls of a turn left out (its results would answer nothing),
  // and the new prompt answers the last turn's calls, if it made any: never a call without its result.
  // (Sending no turn, p = sent.length, is the second case: the turn before it is the last one.)
  const canStartAt = (p: number) => p === 0 || !calls(sent[p - 1]!.turn);
  // Stryker disable next-line ArrayDeclaration: a stray non-number in it compares false both ways (p >= least, p <= least): never chosen
  const starts: number[] = [];
  for (let p = 0; p <= sent.length; p++) if (canStartAt(p)) starts.push(p);
  const least = mode.kind === 'last' ? Math.max(0, sent.length - mode.turns) : 0;
  // Fewer turns than asked for only when a tool call would otherwise lose its result: then more.
  const allowed = starts.filter((p) => p >= least);
  // None at or after `least`: the latest start before it (0 always is one).
  const candidates = allowed.length > 0 ? allowed : [starts.at(-1)!];
  if (input.window === undefined) return fit(candidates[0]!);
  const reserve = input.maxTokens ?? Math.min(DEFAULT_ANSWER_RESERVE, Math.floor(input.window / 4));
  const budget = input.window - reserve;
  const first = candidates.find((p) => sizeFrom(p) <= budget);
  return first !== undefined ? fit(first) : fit(candidates.at(-1)!, true);
}

/**
 * The last answer that reported its input tokens, against what this estimator makes of the request
 * it answered (the turns before it that were sent then, and its own prompt): more than 1 when the
 * model's tokenizer counts more tokens than characters ÷ 4.
 */
function calibration(input: FitInput): number {
  const { turns } = input;
  for (let k = turns.length - 1; k >= 0; k--) {
    const reported = turns[k]!.result.usage.input_tokens;
    if (typeof reported !== 'number' || reported <= 0) continue;
    const before = turns.slice(0, k).filter(isSent).slice(turns[k]!.omittedTurns ?? 0);
    const estimated = (input.system ? textTokens(input.system) : 0) + before.reduce((n, t) => n + askTokens(t) + answerTokens(t), 0) + askTokens(turns[k]!);
    return Math.min(8, Math.max(1, reported / estimated));
  }
  return 1;
}
