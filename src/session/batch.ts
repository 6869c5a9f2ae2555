import { ExitCode, UsageError, type ExitCodeValue } from '../exit-codes.js';
import type { ChatEvent } from '../protocol/events.js';
import type { BatchItem, ParsedLine, ParsedLineSource } from './batch-input.js';
import { idKey } from './batch-input.js';
import type { Budget, BudgetError } from './budget.js';
import type { IdKeys } from './batch-resume.js';
import type { TurnOutcome, TurnStatus } from './types.js';

/** What the scheduler hands the writer for one input line. */
export type BatchRecord =
  | { kind: 'answer'; item: BatchItem; outcome: TurnOutcome }
  | { kind: 'invalid'; line: number; id: string | number; message: string };

/**
 * A line's status in the output: the turn's, except that an answer that arrived whole but failed its
 * check (--schema, exit 9) is an error — it is not complete, so a rerun sends it again.
 */
export function lineStatus(outcome: TurnOutcome): TurnStatus {
  return outcome.status === 'complete' && outcome.error ? 'error' : outcome.status;
}

export interface BatchCounts {
  /** Lines holding a prompt that were answered, failed or cancelled in this run. */
  done: number;
  complete: number;
  failed: number;
  cancelled: number;
  invalid: number;
  /** Already complete in the output file (resume). */
  skipped: number;
  /** SPEC §16: USD spent by the answers of this run, and how many answers had no known cost. */
  costUsd?: number;
  costUnknown?: number;
}

export interface BatchSummary extends BatchCounts {
  exitCode: ExitCodeValue;
  elapsedMs: number;
  /** The failed (or invalid) line that decided the exit code, for the summary. */
  decidedBy?: { line: number; id: string | number; message: string };
  /** SPEC §16: the budget that stopped the batch (exit 11), as one line. */
  budgetStop?: string;
}

export interface BatchRunOptions {
  lines: ParsedLineSource;
  /** Ids (by idKey) complete in an earlier run. */
  skip: IdKeys;
  /** Lines in progress at once; the limiter below decides how many are actually sent. */
  concurrency: number;
  /**
   * Sends one line as its own one-turn conversation; never throws for gateway failures. A UsageError
   * (e.g. an attachment that cannot be read) makes the line invalid: nothing was sent for it.
   */
  send(item: BatchItem, signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> | Promise<TurnOutcome>;
  /** Problems found while running that make a line unsendable (e.g. no model): recorded as invalid. */
  precheck?(item: BatchItem): string | null;
  /** Writes one record; awaited, so a slow reader of the output holds the batch back. */
  /** A promise only when the record has to wait to be written (see BatchSink). */
  write(record: BatchRecord): Promise<void> | void;
  /** Ctrl-C: no new lines are taken, those in flight are cancelled (and recorded as cancelled). */
  signal: AbortSignal;
  /** The exit code for an interrupted batch (130 for SIGINT, 143 for SIGTERM). */
  interruptedCode?(): ExitCodeValue;
  onProgress?(counts: Readonly<BatchCounts>): void;
  /** SPEC §16 --max-cost / budget-daily: once reached, no new line starts (those in flight finish), exit 11. */
  budget?: Budget;
}

/**
 * Many one-turn conversations at once (SPEC §13). A fixed set of workers pulls lines from the input
 * as they finish, so neither the input nor the results are ever held whole; every line is written
 * once, as it completes. The exit code is the first failed line's by input order; any invalid line
 * makes it 2; an interrupt makes it 130.
 */
export async function runBatch(options: BatchRunOptions): Promise<BatchSummary> {
  const started = Date.now();
  const counts: BatchCounts = { done: 0, complete: 0, failed: 0, cancelled: 0, invalid: 0, skipped: 0, costUsd: 0, costUnknown: 0 };
  let budgetStop: BudgetError | null = null;
  let firstFailure: { line: number; id: string | number; code: ExitCodeValue; message: string } | null = null;
  let firstInvalid: { line: number; id: string | number; message: string } | null = null;
  const source = options.lines[Symbol.asyncIterator]();
  const { lines } = options;
  const take = lines.take ? () => lines.take!() : null;
  const { signal } = options;
  const nextLine = unlessAborted(signal);

  // Counted once written; without a promise when the write needed no wait (most lines): the promise
  // jobs of an async function per line add up over a batch.
  const record = (entry: BatchRecord): Promise<void> | void => {
    const written = options.write(entry);
    if (written) return written.then(() => tally(entry));
    tally(entry);
  };
  const tally = (entry: BatchRecord): void => {
    if (entry.kind === 'invalid') {
      counts.invalid++;
      // Stryker disable next-line EqualityOperator: `<=` is equivalent — no two records share a line number (the `>=` mutant is killed by test/session/batch-run.test.ts)
      if (!firstInvalid || entry.line < firstInvalid.line) firstInvalid = { line: entry.line, id: entry.id, message: entry.message };
    } else {
      counts.done++;
      const { outcome, item } = entry;
      if (outcome.result.cost) counts.costUsd! += outcome.result.cost.usd;
      else counts.costUnknown!++;
      const status = lineStatus(outcome);
      if (status === 'complete') counts.complete++;
      else if (status === 'cancelled') counts.cancelled++;
      else {
        counts.failed++;
        const code = outcome.error?.exitCode ?? ExitCode.server;
        // Stryker disable next-line EqualityOperator: `<=` is equivalent — no two records share a line number (the `>=` mutant is killed by test/session/batch-run.test.ts)
        if (!firstFailure || item.line < firstFailure.line) {
          firstFailure = { line: item.line, id: item.id, code, message: outcome.error?.message ?? outcome.status };
        }
      }
    }
    options.onProgress?.(counts);
  };

  const worker = async (): Promise<void> => {
    while (!signal.aborted) {
      // Checked before a line is taken: a line never read is answered by the rerun that resumes.
      budgetStop ??= options.budget?.reached() ?? null;
      if (budgetStop) return;
      // A line already read is taken at once (BatchLineReader); only a line still to be read is waited for.
      let parsed = take?.();
      if (parsed === undefined) {
        const next = await nextLine.wait(source.next());
        if (next === null || next.done || signal.aborted) return;
        parsed = next.value;
      }
      if (parsed.kind === 'blank') continue;
      if (parsed.kind === 'invalid') {
        await record(parsed);
        continue;
      }
      const { item } = parsed;
      if (options.skip.has(idKey(item.id))) {
        counts.skipped++;
        options.onProgress?.(counts);
        continue;
      }
      const problem = options.precheck?.(item) ?? null;
      if (problem !== null) {
        await record({ kind: 'invalid', line: item.line, id: item.id, message: problem });
        continue;
      }
      let outcome: TurnOutcome;
      try {
        const sent = options.send(item, signal);
        // A promise: the caller drained the turn itself (no event generator level in between).
        outcome = sent instanceof Promise ? await sent : await drain(sent);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        await record({ kind: 'invalid', line: item.line, id: item.id, message: error.message });
        continue;
      }
      const written = record({ kind: 'answer', item, outcome });
      if (written) await written;
    }
  };

  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    nextLine.stop();
  }
  const failure = firstFailure as { line: number; id: string | number; code: ExitCodeValue; message: string } | null;
  const invalid = firstInvalid as { line: number; id: string | number; message: string } | null;
  const stopped = budgetStop as BudgetError | null;
  const exitCode: ExitCodeValue = signal.aborted
    ? (options.interruptedCode?.() ?? ExitCode.interrupted)
    : stopped
      ? ExitCode.budget
      : invalid
      ? ExitCode.usage
      : (failure?.code ?? ExitCode.ok);
  const decidedBy = signal.aborted || stopped ? undefined : (invalid ?? failure ?? undefined);
  return { ...counts, exitCode, elapsedMs: Date.now() - started, ...(stopped && !signal.aborted ? { budgetStop: stopped.message } : {}), ...(decidedBy ? { decidedBy: { line: decidedBy.line, id: decidedBy.id, message: decidedBy.message } } : {}) };
}

/**
 * Reading stdin can wait forever for a writer that stays open: Ctrl-C must not wait for it: wait()
 * gives null once the signal is aborted. (Not a Promise.race with one never-settling promise: each
 * race would leave a reaction on it, per line. One abort listener for the run, not one added and
 * removed per line: an AbortSignal's listeners were a visible share of a batch's CPU per prompt.)
 */
function unlessAborted(signal: AbortSignal): { wait<T>(promise: Promise<T>): Promise<T | null>; stop(): void } {
  const waiting = new Set<() => void>();
  const onAbort = () => {
    for (const settle of waiting) settle();
    waiting.clear();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    wait<T>(promise: Promise<T>): Promise<T | null> {
      if (signal.aborted) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        const aborted = () => resolve(null);
        waiting.add(aborted);
        promise.then(
          (value) => {
            waiting.delete(aborted);
            resolve(value);
          },
          (error: unknown) => {
            waiting.delete(aborted);
            reject(error);
          },
        );
      });
    },
    stop: () => signal.removeEventListener('abort', onAbort),
  };
}

export async function drain(events: AsyncGenerator<ChatEvent, TurnOutcome, void>): Promise<TurnOutcome> {
  while (true) {
    const step = await events.next();
    if (step.done) return step.value;
  }
}
