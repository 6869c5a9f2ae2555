import type { Api, Attachment, ChatEvent, ChatResult, Termination } from '../protocol/events.js';
import type { GatechatError } from '../exit-codes.js';

export type TurnStatus = 'complete' | 'interrupted' | 'cancelled' | 'error';

/** What a finished (or failed) turn left behind. Both renderers get this from Conversation.send(). */
export interface TurnOutcome {
  status: TurnStatus;
  /** Always present: on failure it holds exactly the partial text that arrived. */
  result: ChatResult;
  error?: GatechatError;
  termination?: Termination;
  /**
   * --schema only: the parsed answer document (null when the answer is not JSON). Set even when it
   * does not match; then `error` says how (exit 9).
   */
  data?: unknown;
  /** Milliseconds from send to first text/reasoning delta, and to the end. */
  timings: { firstTokenMs: number | null; totalMs: number };
  /** A compaction that succeeded (Conversation.compact): what its summary now stands for. */
  compaction?: CompactionInfo;
}

/** What a summary replaced (SPEC §17): the first `turns` turns, about `coveredTokens`, now about `summaryTokens`. */
export interface CompactionInfo {
  turns: number;
  /** The id of the last turn covered, when it has one. */
  through?: string;
  coveredTokens: number;
  summaryTokens: number;
}

/** Settings that may change during an interactive chat (slash commands). */
export interface SessionSettings {
  model: string;
  api: Api;
  temperature?: number;
  system?: string;
  stream: boolean;
  maxTokens?: number;
  /** Extra request body fields (`-o`), merged into every request of the conversation last. */
  extraBody?: Record<string, unknown>;
  /** `--cache` (SPEC §16): prompt-caching breakpoints on every request. */
  cache?: boolean;
  /** `/tools off` (SPEC §15): the tool definitions are not sent until `/tools on`. */
  toolsOff?: boolean;
}

/** One tool call's result as it goes back to the model and is saved (SPEC §15). */
export interface ToolResultEntry {
  /** The call's id, as the model gave it (or ours, `call_<n>`, for a call without one). */
  id: string;
  name: string;
  ok: boolean;
  /** Not run: the user or the policy declined it. */
  denied?: boolean;
  text: string;
}

export interface FinishedTurn {
  /** '' for a turn that carries `toolResults` instead of a prompt. */
  prompt: string;
  /** This turn answers the previous answer's tool calls with these results (a tool loop's follow-up). */
  toolResults?: ToolResultEntry[];
  /**
   * The answer's reasoning, kept while its tool loop runs so it goes back with its calls (SPEC §15);
   * never loaded from disk, so outside a loop it stays out.
   */
  replay?: { text: string | null; blocks: Record<string, unknown>[] };
  /** Files sent with the prompt (SPEC §12); they go back with it in later turns. */
  attachments?: Attachment[];
  result: ChatResult;
  status: TurnStatus;
  /** Earlier turns its request left out to fit the context window (SPEC §17); absent: none. */
  omittedTurns?: number;
}

/**
 * One conversation: history, settings, persistence. The piped one-shot writer and the Ink UI both
 * drive it; it is the only thing above client/ that talks to the gateway.
 */
export interface Conversation {
  readonly settings: SessionSettings;
  update(patch: Partial<SessionSettings>): void;
  /** null when the conversation is not saved (--no-save / save:false). */
  readonly cid: string | null;
  readonly turns: ReadonlyArray<FinishedTurn>;
  /**
   * Sends one user turn. Yields events as they arrive and returns how it ended. Aborting `signal`
   * ends it as `cancelled` (the partial answer is kept and recorded). Never throws for gateway or
   * network failures: those come back as status `error`/`interrupted` with `error` set.
   */
  send(prompt: string, signal: AbortSignal, attachments?: Attachment[]): AsyncGenerator<ChatEvent, TurnOutcome, void>;
  /** Sends the results of the last answer's tool calls (a tool loop's next step, SPEC §15). */
  sendToolResults?(results: ToolResultEntry[], signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void>;
  /**
   * Re-sends the last prompt, replacing the last answer in the context (/retry). `keep` (/retry -m,
   * SPEC §17): the replaced answer stays in the saved conversation beside the new one. Null when there is none.
   */
  retry(signal: AbortSignal, options?: { keep?: boolean }): AsyncGenerator<ChatEvent, TurnOutcome, void> | null;
  /** Starts a new conversation (/clear). */
  clear(): void;
  /**
   * /compact (SPEC §17): asks the model to summarise the conversation so far (`instructions` added to
   * the fixed request); the summary answers like a turn and, once complete, replaces the turns it
   * covers in later requests (and is saved). Null when there is nothing new to summarise.
   */
  compact?(instructions: string, signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> | null;
  /** The summary in effect (a resumed chat shows it): its text and how many of the first turns it stands for. */
  currentSummary?(): { text: string; covered: number } | null;
}
