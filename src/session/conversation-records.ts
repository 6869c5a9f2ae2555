import type { Cost } from '../protocol/cost.js';
import type { Api, FinishReason, ImageMime, ToolCall, ToolDefinition } from '../protocol/events.js';
import type { ToolResultEntry, TurnStatus } from './types.js';

// The records of a conversation file (one JSON object per line) and how they become turns. Pure: the
// store reads and writes, conversation-parse.ts checks each line, this pairs them.
//
// Several gatechat processes may append to one conversation at once (`-c` in two terminals): their
// records interleave (prompt 1, prompt 2, answer 2, answer 1). So each prompt carries a turn id and
// its answer and answer parts name it; turns are paired by id, never by position, and ordered by
// their prompts. Files written before turn ids pair by position, as they were written.

/**
 * What a conversation continues with (SPEC §6): the header holds the first turn's, and a prompt
 * sent with different ones carries the new set. null is "none" (the gateway's default), written so
 * that a value configured later does not creep into the conversation; a missing field (files
 * written before these were recorded) leaves it to flags and config.
 */
export interface SavedSettings {
  model: string;
  api: Api;
  system?: string | null;
  temperature?: number | null;
  max_tokens?: number | null;
  /** Extra request body fields (-o). */
  options?: Record<string, unknown> | null;
  tools?: ToolDefinition[] | null;
}

export interface MetaRecord extends SavedSettings {
  type: 'meta';
  v: 1;
  cid: string;
  created: string;
  /** `history fork`: the conversation this one was copied from. */
  forked_from?: string;
}

/** An attachment as saved: text inline, binary content by hash in the blob store. */
export type StoredAttachment =
  | { kind: 'text'; path: string; text: string }
  | { kind: 'image'; path: string; mime: ImageMime; sha256: string; bytes: number }
  | { kind: 'pdf'; path: string; sha256: string; bytes: number };

export interface UserRecord {
  type: 'user';
  /** The turn's id: its answer names it. Absent in files written before turn ids. */
  turn?: string;
  ts: string;
  content: string;
  attachments?: StoredAttachment[];
  /** /retry: this prompt asks an earlier turn again and supersedes it in the context (both stay on disk). */
  retry?: true;
  /** The turn /retry supersedes; without it (older files), the one before this prompt. */
  supersedes?: string;
  /**
   * `/retry -m <model>` (SPEC §17): the superseded answer is kept beside this one (`StoredTurn.alternatives`)
   * instead of replaced; the context continues with this, the newest.
   */
  keep?: true;
  /** The settings from this prompt on, when they differ from those before it. */
  settings?: SavedSettings;
  /** A tool loop's follow-up (SPEC §15): the results of the previous answer's calls, in call order. */
  tool_results?: ToolResultEntry[];
}

export interface AssistantRecord {
  type: 'assistant';
  /** The id of the prompt this answers. */
  turn?: string;
  ts: string;
  /** Exactly the text that arrived: partial when the status is not `complete`. */
  content: string;
  reasoning: string | null;
  tool_calls: ToolCall[];
  status: TurnStatus;
  finish_reason: FinishReason | null;
  raw_finish_reason: string | null;
  usage: { input_tokens: number | null; output_tokens: number | null; cache_read_tokens?: number | null; cache_write_tokens?: number | null };
  /** SPEC §16: what the answer cost (null: unknown; absent in files from before). */
  cost?: Cost | null;
  model: string | null;
  api: Api;
  params: { temperature?: number; max_tokens?: number; stream: boolean; options?: Record<string, unknown> };
  timings: { first_token_ms: number | null; total_ms: number };
  error?: { message: string; exit_code: number };
  /** Earlier turns its request left out to fit the model's context window (SPEC §17). */
  omitted_turns?: number;
  /** The model first asked for, when a fallback (`model`) answered (SPEC §17). */
  fallback_from?: string;
}

/**
 * A piece of an answer written while it streams (long answers that are not kept in memory). The
 * turn's `assistant` record follows with the rest; without one (a crash), the parts are the
 * partial answer.
 */
export interface AnswerPartRecord {
  type: 'answer_part';
  turn?: string;
  ts: string;
  content: string;
}

/**
 * `--title` (SPEC §17): names the conversation from here on; the last one in the file wins. Without
 * one, the title is the first line of the first prompt (`titleOf`). Belongs to no turn.
 */
export interface TitleRecord {
  type: 'title';
  ts: string;
  title: string;
}

/**
 * `/compact`, `history compact` (SPEC §17): a summary of the conversation's first `turns` turns (as
 * `history show` numbers them when it was written, the last being `through`), sent in their place by
 * every later request. The turns themselves stay in the file; the last summary is the one in effect.
 */
export interface SummaryRecord {
  type: 'summary';
  ts: string;
  content: string;
  turns: number;
  /** The id of the last turn covered (absent when that turn had none: files from before turn ids). */
  through?: string;
  /** What made the summary. */
  model: string | null;
  api: Api;
  usage: AssistantRecord['usage'];
  cost?: Cost | null;
  /** The user's own instructions for it (`/compact keep the numbers`), when any. */
  instructions?: string;
}

export type StoredRecord = UserRecord | AssistantRecord | AnswerPartRecord | TitleRecord | SummaryRecord;

/** A conversation read back: its turns and the settings its last prompt was sent with. */
export interface LoadedConversation {
  meta: MetaRecord;
  turns: StoredTurn[];
  settings: SavedSettings;
  /** Every summary in the file, oldest first; the last is in effect (see StoredSummary). */
  summaries: StoredSummary[];
}

/** A summary read back: `covered` is how many of the leading `turns` it stands for now. */
export interface StoredSummary extends SummaryRecord {
  covered: number;
}

export interface StoredTurn {
  /** The turn id (absent in older files): what a /retry of this turn names. */
  id?: string;
  user: string;
  /** A tool loop's follow-up: the results it carried. */
  toolResults?: ToolResultEntry[];
  /** As saved; StoredAttachments → Attachments with ConversationStore.hydrate(). */
  attachments?: StoredAttachment[];
  /** null when the answer never got recorded (crash, kill -9) or is still being written by another run. */
  assistant: AssistantRecord | null;
  /** Earlier asks of the same prompt that `/retry -m` kept (oldest first): shown, never sent again. */
  alternatives?: StoredTurn[];
}

export interface ConversationSummary {
  cid: string;
  created: string;
  updated: string;
  model: string;
  api: Api;
  turns: number;
  /** First line of the first prompt, at most 60 characters. */
  title: string;
}

/** The turns in prompt order, each with its own answer, and the settings in effect at the end. */
export function pairTurns(meta: MetaRecord, records: readonly StoredRecord[]): { turns: StoredTurn[]; settings: SavedSettings; summaries: StoredSummary[] } {
  let turns: StoredTurn[] = [];
  // Each summary with the turn objects it covered when written: a turn a later /retry supersedes leaves
  // the list and the one asking again is new, so what a summary covers is still the leading turns it marked.
  const marked: Array<{ record: SummaryRecord; covers: ReadonlySet<StoredTurn> }> = [];
  let settings = headerSettings(meta, records);
  const byId = new Map<string, StoredTurn>();
  const partsById = new Map<string, string[]>();
  // Records without a turn id (older files) belong to the latest prompt, as they were written one after the other.
  // Stryker disable next-line ArrayDeclaration: parts before the first prompt are dropped at that prompt whatever they hold
  let positionalParts: string[] = [];
  let lastTurn: StoredTurn | undefined;
  const closeCrashedAnswer = (): void => {
    if (lastTurn && lastTurn.assistant === null && positionalParts.length > 0) {
      lastTurn.assistant = crashedAnswer(positionalParts.join(''), meta);
    }
    positionalParts = [];
  };
  for (const record of records) {
    if (record.type === 'title') continue;
    if (record.type === 'summary') {
      const through = record.through === undefined ? -1 : turns.findIndex((turn) => turn.id === record.through);
      const count = through >= 0 ? through + 1 : Math.min(record.turns, turns.length);
      marked.push({ record, covers: new Set(turns.slice(0, count)) });
      continue;
    }
    if (record.type === 'user') {
      closeCrashedAnswer();
      if (record.settings) settings = savedSettings(record.settings, settings);
      let kept: StoredTurn[] | undefined;
      if (record.retry) {
        const superseded = record.supersedes !== undefined ? byId.get(record.supersedes) : turns[turns.length - 1];
        turns = turns.filter((t) => t !== superseded);
        // The turn object itself, not a copy: an answer of it paired later (records interleave) still lands in it.
        // A plain /retry replaces only the newest answer: the ones kept before stay kept.
        if (superseded) kept = record.keep ? [...(superseded.alternatives ?? []), superseded] : superseded.alternatives;
      }
      const turn: StoredTurn = { user: record.content, assistant: null, ...(kept ? { alternatives: kept } : {}) };
      if (record.turn !== undefined && !byId.has(record.turn)) {
        turn.id = record.turn;
        byId.set(record.turn, turn);
      }
      if (record.attachments?.length) turn.attachments = record.attachments;
      if (record.tool_results?.length) turn.toolResults = record.tool_results;
      turns.push(turn);
      lastTurn = turn;
    } else if (record.type === 'answer_part') {
      if (record.turn === undefined) positionalParts.push(record.content);
      else if (byId.get(record.turn)?.assistant === null) partsById.set(record.turn, [...(partsById.get(record.turn) ?? []), record.content]);
    } else if (record.turn !== undefined) {
      const turn = byId.get(record.turn);
      // An answer to no prompt in this file (hand edits), or a second one, is dropped.
      if (turn && turn.assistant === null) {
        const parts = partsById.get(record.turn) ?? [];
        turn.assistant = { ...record, content: parts.join('') + record.content };
        partsById.delete(record.turn);
      }
    } else {
      // The parts so far stay until the next prompt, whose closeCrashedAnswer() drops them: this turn has its answer now.
      if (lastTurn && lastTurn.assistant === null) lastTurn.assistant = { ...record, content: positionalParts.join('') + record.content };
    }
  }
  closeCrashedAnswer();
  // Parts streamed to disk with no final record (a crash mid-answer) are the partial answer.
  for (const [id, parts] of partsById) {
    const turn = byId.get(id);
    if (turn && turn.assistant === null) turn.assistant = crashedAnswer(parts.join(''), meta);
  }
  const summaries = marked.map(({ record, covers }) => {
    let covered = 0;
    // Past the last turn, turns[covered] is undefined, which no summary covers.
    while (covers.has(turns[covered]!)) covered++;
    return { ...record, covered };
  });
  return { turns, settings, summaries };
}

/**
 * The header's settings. A header written before the settings were recorded has only model, api
 * and system; the last answer's params then tell the temperature, max tokens and options used.
 */
function headerSettings(meta: MetaRecord, records: readonly StoredRecord[]): SavedSettings {
  const settings = savedSettings(meta, { model: '', api: 'chat' });
  const recorded = (['temperature', 'max_tokens', 'options', 'tools'] as const).some((key) => key in meta);
  if (recorded) return settings;
  const lastAnswer = records.findLast((r): r is AssistantRecord => r.type === 'assistant');
  const params = (lastAnswer?.params ?? {}) as Partial<AssistantRecord['params']>;
  if (typeof params.temperature === 'number') settings.temperature = params.temperature;
  if (typeof params.max_tokens === 'number') settings.max_tokens = params.max_tokens;
  if (isObject(params.options)) settings.options = params.options;
  return settings;
}

/**
 * Settings from a record, each field checked for its type (files can be edited by hand): a field
 * of the wrong type is dropped, so flags and config decide it, as for an old file.
 */
export function savedSettings(value: Partial<SavedSettings>, fallback: Pick<SavedSettings, 'model' | 'api'>): SavedSettings {
  const out: SavedSettings = {
    model: typeof value.model === 'string' ? value.model : fallback.model,
    api: value.api === 'chat' || value.api === 'messages' ? value.api : fallback.api,
  };
  const take = <K extends keyof SavedSettings>(key: K, ok: (v: unknown) => boolean) => {
    const v = value[key];
    // Stryker disable next-line ConditionalExpression: every check below is false for undefined
    if (v === null || (v !== undefined && ok(v))) out[key] = v as SavedSettings[K];
  };
  take('system', (v) => typeof v === 'string');
  // Stryker disable next-line ConditionalExpression: Number.isFinite is false for every non-number
  take('temperature', (v) => typeof v === 'number' && Number.isFinite(v));
  take('max_tokens', (v) => Number.isInteger(v) && (v as number) > 0);
  take('options', isObject);
  take('tools', Array.isArray);
  return out;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What `history list` calls a conversation (SPEC §17): its last `--title`, else its first prompt's first line. */
export function conversationTitle(records: readonly StoredRecord[]): string {
  const named = records.findLast((r): r is TitleRecord => r.type === 'title');
  if (named) return named.title;
  const first = records.find((r): r is UserRecord => r.type === 'user');
  return first ? titleOf(first.content) : '';
}

/** A conversation's title: the first line of its first prompt, at most 60 characters. */
export function titleOf(prompt: string): string {
  const line = prompt.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}

function crashedAnswer(content: string, meta: MetaRecord): AssistantRecord {
  return {
    type: 'assistant',
    ts: '',
    content,
    reasoning: null,
    tool_calls: [],
    status: 'interrupted',
    finish_reason: null,
    raw_finish_reason: null,
    usage: { input_tokens: null, output_tokens: null },
    model: meta.model || null,
    api: meta.api,
    params: { stream: true },
    timings: { first_token_ms: null, total_ms: 0 },
    error: { message: 'gatechat stopped before the answer ended', exit_code: 1 },
  };
}
