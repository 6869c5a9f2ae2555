import { join } from 'node:path';
import type { Api, ChatResult } from '../protocol/events.js';
import type { CostSource } from '../protocol/cost.js';
import { appendOwnRecord, ensurePrivateDir, OwnLogAppender } from '../storage/own-files.js';
import { storageError } from '../storage/storage-error.js';
import { dataDir } from './paths.js';
import { isoTimestamp } from './timestamp.js';
import type { TurnStatus } from './types.js';

// SPEC §16: one line per request in `usage.jsonl` in the data dir — what was spent, never what was said.
// Each line is one write() on an O_APPEND descriptor (appendOwnRecord), so concurrent runs never tear
// each other's lines and need no lock.

export const LEDGER_FILE = 'usage.jsonl';

/** One ledger line. Short keys keep 100 000 lines small; `gatechat usage` reads them back. */
export interface LedgerLine {
  /** ISO time the answer ended. */
  ts: string;
  profile: string | null;
  /** The answering model (the gateway's name for it), else the requested id. */
  model: string;
  api: Api;
  in: number | null;
  out: number | null;
  cache_read: number | null;
  cache_write: number | null;
  /** USD; null: unknown. */
  cost: number | null;
  cost_source: CostSource | null;
  status: TurnStatus;
  /** The model first asked for, when a fallback answered (SPEC §17). */
  fallback_from?: string;
  cid?: string;
  batch?: string;
}

/** Who is spending: the parts of a ledger line that come from the run, not the answer. */
export interface LedgerTags {
  profile: string | undefined;
  /** A batch run's id (its output file, or `-`). */
  batch?: string;
}

export function ledgerPath(dir = dataDir()): string {
  return join(dir, LEDGER_FILE);
}

export function ledgerLine(result: ChatResult, status: TurnStatus, requested: string, tags: LedgerTags, now = new Date()): LedgerLine {
  const { usage, cost } = result;
  // Optional fields assigned after the others (the same key order as spreading them in), without an
  // object per spread: this runs for every line of a batch.
  const line: LedgerLine = {
    ts: isoTimestamp(now),
    profile: tags.profile ?? null,
    model: result.model ?? requested,
    api: result.api,
    in: usage.input_tokens,
    out: usage.output_tokens,
    cache_read: usage.cache_read_tokens ?? null,
    cache_write: usage.cache_write_tokens ?? null,
    cost: cost?.usd ?? null,
    cost_source: cost?.source ?? null,
    status,
  };
  if (result.fallback_from) line.fallback_from = result.fallback_from;
  if (result.cid) line.cid = result.cid;
  if (tags.batch !== undefined) line.batch = tags.batch;
  return line;
}

/** Appends requests to the ledger; a ledger that cannot be written is a warning, never a failed answer. */
export class UsageLedger {
  #warned = false;
  /** A batch's many records go through one descriptor (see keepOpen); null: opened per record. */
  readonly #appender: OwnLogAppender | null;
  readonly #path: string;
  /** keepOpen: this turn's records, newline-separated, not written yet. */
  #pending = '';
  #scheduled = false;

  constructor(
    private readonly tags: LedgerTags,
    private readonly warn: (line: string) => void,
    private readonly dir = dataDir(),
    /** Many records in one run (batch): keep the file open until close(), rather than open it per record. */
    options: { keepOpen?: boolean } = {},
  ) {
    this.#path = ledgerPath(dir);
    this.#appender = options.keepOpen ? new OwnLogAppender(this.#path, dir) : null;
  }

  record(result: ChatResult, status: TurnStatus, requested: string): void {
    try {
      const line = JSON.stringify(ledgerLine(result, status, requested, this.tags));
      if (this.#appender) {
        // Written at the end of this turn of the event loop, with the other records it finished.
        this.#pending = this.#pending === '' ? line : `${this.#pending}\n${line}`;
        if (!this.#scheduled) {
          this.#scheduled = true;
          setImmediate(this.#flush);
        }
      } else {
        ensurePrivateDir(this.dir);
        appendOwnRecord(this.#path, line, { create: true });
      }
    } catch (error) {
      this.#failed(error);
    }
  }

  /**
   * keepOpen: the records of one turn of the event loop (the answers its network reads finished) as one
   * write(), still whole lines on the O_APPEND descriptor, so concurrent runs never tear them; a write
   * and an fstat per record were a visible share of a batch's CPU per prompt.
   */
  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#pending === '' || !this.#appender) return;
    const lines = this.#pending;
    this.#pending = '';
    try {
      this.#appender.append(lines);
    } catch (error) {
      this.#failed(error);
    }
  };

  #failed(error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    // A warning, not exit 2 as other storage faults are: the answer came back (and was paid for), and
    // a script should not take it for a failure because the record of its cost could not be kept.
    const cause = storageError(error, 'cannot write to', this.#path).message;
    this.warn(`warning: this request is not in the usage ledger: ${cause} (turn the ledger off: gatechat config set ledger false)`);
  }

  /**
   * Writes the records waiting for the end of this turn now. A batch calls it before an output line
   * reaches its --output file: a line there is skipped on a rerun, so its request's record must be
   * in the ledger first, or a kill -9 between the two would lose that cost for good.
   */
  flush(): void {
    this.#flush();
  }

  /** Writes what this turn recorded, then lets the descriptor go. */
  close(): void {
    this.#flush();
    this.#appender?.close();
  }
}
