import type { Cost } from '../../protocol/cost.js';
import type { ToolCall } from '../../protocol/events.js';
import type { FinishedTurn, TurnOutcome, TurnStatus } from '../../session/types.js';
import type { DeltaBatch } from './delta-batch.js';
import { cutForSize, findLastSafeSplitPoint } from './markdown-split.js';

/** Something already printed above the live region (rendered once by <Static>, never again). */
export type StaticItem =
  | { id: number; kind: 'banner'; text: string }
  | { id: number; kind: 'prompt'; text: string }
  /** `joined`: cut from the piece before it for size (no blank line between them). */
  | { id: number; kind: 'answer'; text: string; joined?: boolean }
  | { id: number; kind: 'reasoning'; text: string }
  | { id: number; kind: 'reasoning-collapsed'; lines: number }
  | { id: number; kind: 'tool'; call: ToolCall }
  | { id: number; kind: 'notice'; text: string; tone: NoticeTone };

export type NoticeTone = 'info' | 'error' | 'warn' | 'dim';

/** The turn being answered: only this part of the screen changes per token. */
export interface LiveTurn {
  startedAt: number;
  firstTokenAt: number | null;
  /** Text not yet moved to <Static>: at most the block being written. */
  pending: string;
  /** The pending text continues a piece cut for size: it follows it with no blank line. */
  pendingJoined: boolean;
  /** The whole answer so far (for /copy after a cancel). */
  text: string;
  reasoning: string;
  /** Reasoning is moved out once the answer text begins. */
  reasoningDone: boolean;
  toolCalls: ToolCall[];
  usage: { input_tokens: number | null; output_tokens: number | null } | null;
  /** Text and reasoning deltas so far (the status line's token count until usage arrives). */
  deltas: number;
  /** When the last delta arrived: the status line says how long the stream has been silent. */
  lastTokenAt: number | null;
}

export interface LastAnswer {
  text: string;
  reasoning: string;
  status: TurnStatus;
  input_tokens: number | null;
  output_tokens: number | null;
  /** SPEC §16: shown `(900 cached)` after the input count. */
  cache_read_tokens?: number | null;
  /** SPEC §16: null: unknown. */
  cost?: Cost | null;
  seconds: number;
  model: string | null;
}

export interface ChatState {
  items: StaticItem[];
  nextId: number;
  live: LiveTurn | null;
  last: LastAnswer | null;
  showReasoning: boolean;
  /** The first Ctrl-C on an empty prompt arms exit; the second exits. */
  exitArmed: boolean;
  /** Bumped when /clear starts a new conversation: <Static> is keyed by it and prints the new banner. */
  epoch: number;
}

export type ChatAction =
  | { type: 'turn-start'; prompt: string; now: number }
  | { type: 'batch'; batch: DeltaBatch; now: number }
  | { type: 'turn-end'; outcome: TurnOutcome; now: number; errorLine?: string }
  | { type: 'notice'; text: string; tone: NoticeTone }
  | { type: 'toggle-reasoning'; show?: boolean }
  | { type: 'arm-exit'; armed: boolean }
  /** <Static> printed the items up to this id: their answer and reasoning text is let go. */
  | { type: 'forget-printed'; through: number }
  | { type: 'reset'; banner?: string };

export function initialChat(options: { showReasoning: boolean; banner?: string; history?: ReadonlyArray<NewItem> }): ChatState {
  const items: StaticItem[] = [];
  let nextId = 1;
  if (options.banner) items.push({ id: nextId++, kind: 'banner', text: options.banner });
  for (const item of options.history ?? []) items.push({ ...item, id: nextId++ });
  return { items, nextId, live: null, last: null, showReasoning: options.showReasoning, exitArmed: false, epoch: 0 };
}

export type NewItem = StaticItem extends infer T ? (T extends StaticItem ? Omit<T, 'id'> : never) : never;

function push(state: ChatState, ...items: NewItem[]): ChatState {
  if (items.length === 0) return state;
  let nextId = state.nextId;
  const added = items.map((item) => ({ ...item, id: nextId++ }) as StaticItem);
  return { ...state, items: state.items.concat(added), nextId };
}

function reasoningItems(reasoning: string, show: boolean): NewItem[] {
  const trimmed = reasoning.trim();
  if (!trimmed) return [];
  return show ? [{ kind: 'reasoning', text: trimmed }] : [{ kind: 'reasoning-collapsed', lines: trimmed.split('\n').length }];
}

/**
 * The most text the live region holds. It is rendered again on every batch, so an answer with no
 * safe split point (one endless line, a huge code block) would cost more per batch as it grows; past
 * this it is cut for size (markdown-split.ts cutForSize) and printed like a finished block.
 */
export const LIVE_PENDING_MAX = 32 * 1024;

/**
 * <Static> prints an item once and never again, so what it printed need not be kept: a long answer
 * (or a hostile endless one) would otherwise stay in memory as items beside the copy the conversation
 * keeps. Ids stay, so <Static> still knows how many it printed.
 */
function forgetPrinted(state: ChatState, through: number): ChatState {
  const big = (item: StaticItem) => (item.kind === 'answer' || item.kind === 'reasoning') && item.id <= through && item.text !== '';
  if (!state.items.some(big)) return state;
  return { ...state, items: state.items.map((item) => (big(item) ? { ...item, text: '' } : item)) };
}

function answerItem(text: string, joined: boolean): NewItem {
  return joined ? { kind: 'answer', text, joined } : { kind: 'answer', text };
}

function applyBatch(state: ChatState, batch: DeltaBatch, now: number): ChatState {
  const live = state.live;
  if (!live) return state;
  const next: LiveTurn = { ...live };
  const out: NewItem[] = [];
  if ((batch.text || batch.reasoning || batch.toolCalls.length) && next.firstTokenAt === null) next.firstTokenAt = now;
  if (batch.deltas > 0 || batch.toolCalls.length) next.lastTokenAt = now;
  next.deltas += batch.deltas;
  if (batch.reasoning && !next.reasoningDone) next.reasoning += batch.reasoning;
  if (batch.text) {
    if (!next.reasoningDone) {
      out.push(...reasoningItems(next.reasoning, state.showReasoning));
      next.reasoningDone = true;
    }
    next.text += batch.text;
    next.pending += batch.text;
    const split = findLastSafeSplitPoint(next.pending);
    if (split > 0) {
      out.push(answerItem(next.pending.slice(0, split), next.pendingJoined));
      next.pending = next.pending.slice(split);
      next.pendingJoined = false;
    }
    while (next.pending.length > LIVE_PENDING_MAX) {
      const { head, rest } = cutForSize(next.pending, LIVE_PENDING_MAX);
      out.push(answerItem(head, next.pendingJoined));
      next.pending = rest;
      next.pendingJoined = true;
    }
  }
  if (batch.toolCalls.length) next.toolCalls = [...next.toolCalls, ...batch.toolCalls];
  if (batch.usage) next.usage = batch.usage;
  return push({ ...state, live: next }, ...out);
}

const STATUS_NOTE: Record<Exclude<TurnStatus, 'complete'>, string> = {
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  error: 'failed',
};

function endTurn(state: ChatState, outcome: TurnOutcome, now: number, errorLine: string | undefined): ChatState {
  const live = state.live;
  if (!live) return state;
  const out: NewItem[] = [];
  if (!live.reasoningDone) out.push(...reasoningItems(live.reasoning, state.showReasoning));
  if (live.pending.trim()) out.push(answerItem(live.pending, live.pendingJoined));
  for (const call of live.toolCalls) out.push({ kind: 'tool', call });
  if (outcome.status !== 'complete') {
    const line = outcome.status === 'cancelled' ? undefined : (errorLine ?? outcome.error?.message);
    out.push({
      kind: 'notice',
      tone: outcome.status === 'cancelled' ? 'warn' : 'error',
      text: line ? `✗ ${STATUS_NOTE[outcome.status]}: ${line}` : `⊘ ${STATUS_NOTE[outcome.status]}`,
    });
  } else if (outcome.result.finish_reason === 'length') {
    out.push({ kind: 'notice', tone: 'warn', text: 'answer cut off at the token limit (finish_reason: length)' });
  }
  const usage = outcome.result.usage;
  const last: LastAnswer = {
    text: outcome.result.text || live.text,
    reasoning: outcome.result.reasoning ?? live.reasoning,
    status: outcome.status,
    input_tokens: usage.input_tokens ?? live.usage?.input_tokens ?? null,
    output_tokens: usage.output_tokens ?? live.usage?.output_tokens ?? null,
    cache_read_tokens: usage.cache_read_tokens ?? null,
    cost: outcome.result.cost ?? null,
    seconds: (outcome.timings.totalMs || now - live.startedAt) / 1000,
    model: outcome.result.model,
  };
  return push({ ...state, live: null, last }, ...out);
}

/** After an answer that called tools: what the next message will be (SPEC §6). */
export const TOOL_RESULT_HINT = 'your next message is sent as the result of the tool call(s) above';

/** How many earlier turns a resumed chat prints; `gatechat history show` has them all. */
export const PAST_TURNS_SHOWN = 20;

/**
 * A resumed chat (-c / --cid) prints the turns it continues, as they were shown when answered:
 * prompt, answer, tool calls and a mark for an answer that did not complete. Reasoning is left out.
 */
export function pastTurnItems(turns: ReadonlyArray<FinishedTurn>, limit = PAST_TURNS_SHOWN, summary?: { text: string; covered: number } | null): NewItem[] {
  const items: NewItem[] = [];
  const hidden = turns.length - limit;
  if (hidden > 0) items.push({ kind: 'notice', tone: 'dim', text: `… ${hidden} earlier turn${hidden === 1 ? '' : 's'} (gatechat history show)` });
  // SPEC §17: the summary that stands for the first `covered` turns, after the last of them (first when that one is not shown).
  const showSummary = () => {
    if (!summary) return;
    const span = summary.covered === 1 ? 'turn 1, sent in its place' : `turns 1–${summary.covered}, sent in their place`;
    items.push({ kind: 'notice', tone: 'dim', text: `summary of ${span} (/compact): ${summary.text}` });
  };
  if (summary && summary.covered <= Math.max(0, hidden)) showSummary();
  for (const [index, turn] of turns.entries()) {
    if (index < hidden) continue;
    if (summary && index === summary.covered && index > Math.max(0, hidden)) showSummary();
    items.push({ kind: 'prompt', text: turn.prompt });
    if (turn.result.text.trim()) items.push({ kind: 'answer', text: turn.result.text });
    for (const call of turn.result.tool_calls) items.push({ kind: 'tool', call });
    if (turn.status !== 'complete') {
      items.push({ kind: 'notice', tone: turn.status === 'cancelled' ? 'warn' : 'error', text: `${turn.status === 'cancelled' ? '⊘' : '✗'} ${STATUS_NOTE[turn.status]}` });
    }
  }
  if (summary && summary.covered === turns.length && summary.covered > Math.max(0, hidden)) showSummary();
  if ((turns.at(-1)?.result.tool_calls.length ?? 0) > 0) items.push({ kind: 'notice', tone: 'dim', text: TOOL_RESULT_HINT });
  return items;
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'turn-start': {
      const live: LiveTurn = {
        startedAt: action.now,
        firstTokenAt: null,
        pending: '',
        pendingJoined: false,
        text: '',
        reasoning: '',
        reasoningDone: false,
        toolCalls: [],
        usage: null,
        deltas: 0,
        lastTokenAt: null,
      };
      return push({ ...state, live, exitArmed: false }, { kind: 'prompt', text: action.prompt });
    }
    case 'batch':
      return applyBatch(state, action.batch, action.now);
    case 'turn-end':
      return endTurn(state, action.outcome, action.now, action.errorLine);
    case 'notice':
      return push(state, { kind: 'notice', text: action.text, tone: action.tone });
    case 'toggle-reasoning': {
      const show = action.show ?? !state.showReasoning;
      const next = { ...state, showReasoning: show };
      // Turning it on shows the last answer's reasoning that was folded away.
      if (show && !state.live && state.last?.reasoning.trim() && !state.showReasoning) {
        return push(next, { kind: 'reasoning', text: state.last.reasoning.trim() });
      }
      return push(next, { kind: 'notice', tone: 'dim', text: `reasoning ${show ? 'shown' : 'folded'} (Ctrl-R toggles)` });
    }
    case 'forget-printed':
      return forgetPrinted(state, action.through);
    case 'arm-exit':
      return state.exitArmed === action.armed ? state : { ...state, exitArmed: action.armed };
    case 'reset':
      return {
        ...initialChat({ showReasoning: state.showReasoning, banner: action.banner }),
        epoch: state.epoch + 1,
      };
    default: {
      const never: never = action;
      throw new Error(`unknown chat action ${JSON.stringify(never)}`);
    }
  }
}
