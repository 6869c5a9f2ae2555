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
}

export interface FinishedTurn {
  prompt: string;
  /** Files sent with the prompt (SPEC §12); they go back with it in later turns. */
  attachments?: Attachment[];
  result: ChatResult;
  status: TurnStatus;
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
  /** Re-sends the last prompt, replacing the last answer in the context (/retry). Null when there is none. */
  retry(signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> | null;
  /** Starts a new conversation (/clear). */
  clear(): void;
}
