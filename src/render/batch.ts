import { closeSync, constants, openSync } from 'node:fs';
import { PRIVATE_FILE_MODE, writeRecord } from '../storage/own-files.js';
import { storageError } from '../storage/storage-error.js';
import type { Writable } from 'node:stream';
import { lineStatus, type BatchCounts, type BatchRecord, type BatchSummary } from '../session/batch.js';
import { resultObject } from './json.js';
import { writeOrWait } from './output.js';
import { jsonText } from './json-text.js';
import { createProgressLine } from './progress-line.js';
import { sanitizeForTerminal } from './terminal-text.js';
import { formatUsd } from '../protocol/cost.js';

/** One output line (SPEC §13): the `--json` object of the line's answer plus its id and status. */
export function batchLine(record: BatchRecord): string {
  if (record.kind === 'invalid') {
    return `${jsonText({ id: record.id, status: 'invalid', error: { message: `line ${record.line}: ${record.message}`, exit_code: 2 } })}\n`;
  }
  return `${jsonText({ id: record.item.id, ...resultObject(record.outcome), status: lineStatus(record.outcome) })}\n`;
}

export interface BatchSink {
  /** A promise only when the line has to wait (stdout's reader is behind); else written when it returns (or gathered, see fileSink). */
  write(record: BatchRecord): Promise<void> | void;
  /** Writes the lines gathered so far (fileSink with gatherChars); close() does too. */
  flush?(): void;
  close(): void;
}

/**
 * `--output`: appended, never rewritten; each write() holds whole lines, so a crash leaves at most a
 * torn last line, which the next run ignores after starting a fresh line. A line that cannot be
 * written whole (disk full) is one clear error, never a silent tear. Created 0600, like every file
 * gatechat makes (answers can be private); an existing file keeps its mode.
 *
 * Each line is written as it comes, unless `gatherChars` is set: then lines are gathered and written
 * together once that many characters wait, and at flush() and close(). A remote batch's results come
 * thousands at once and are on the gateway until it says they are collected: there, one write per line
 * made a Buffer per line (garbage outside the heap until a GC) and a system call per line.
 */
export function fileSink(path: string, endsMidLine: boolean, gatherChars = 0): BatchSink {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, PRIVATE_FILE_MODE);
  let closed = false;
  let gathered = '';
  const append = (text: string): void => {
    // A line finished after close (a worker cancelled by a failure) must not reach a reused descriptor.
    if (closed) throw new Error('the batch output is closed');
    try {
      writeRecord(fd, Buffer.from(text), path);
    } catch (error) {
      throw storageError(error, 'cannot write the batch output', path);
    }
  };
  // One Buffer per gathering, not one kept and grown: a single result line may be 64 MiB, and a kept
  // buffer would hold that much for the rest of the run.
  const flush = (): void => {
    if (gathered === '') return;
    const text = gathered;
    gathered = '';
    append(text);
  };
  try {
    if (endsMidLine) append('\n');
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return {
    write(record) {
      if (gatherChars <= 0) return append(batchLine(record));
      if (closed) throw new Error('the batch output is closed');
      gathered += batchLine(record);
      if (gathered.length >= gatherChars) flush();
    },
    flush,
    close() {
      if (closed) return;
      try {
        flush();
      } finally {
        closed = true;
        closeSync(fd);
      }
    },
  };
}

/**
 * stdout: a slow reader holds the batch back instead of filling memory. The lines finished in one turn
 * of the event loop (one batch of network reads) go out as one write, on setImmediate: on a pipe each
 * write is a system call that wakes the reader, a visible share of a batch's CPU per prompt when it
 * was one per line. The bytes are the same; a line waits at most until the current reads are handled.
 */
export function streamSink(stream: Writable): BatchSink {
  let pending = '';
  let scheduled = false;
  /** stdout's reader is behind: lines wait (and so do the workers) until it drains. */
  let waiting: Promise<void> | null = null;
  const flush = (): void => {
    scheduled = false;
    if (pending === '' || waiting) return;
    const chunk = pending;
    pending = '';
    const wait = writeOrWait(stream, chunk);
    if (wait) {
      waiting = wait.then(() => {
        waiting = null;
        flush();
      });
    }
  };
  return {
    write(record) {
      pending += batchLine(record);
      if (waiting) return waiting;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    close() {
      // What is still pending goes out now (the process may exit next); a reader behind gets it buffered.
      if (pending !== '' && !stream.destroyed) stream.write(pending);
      pending = '';
    },
  };
}

const REDRAW_MS = 250;

export interface BatchProgress {
  update(counts: Readonly<BatchCounts>): void;
  /** A warning while the progress line is shown: printed above it. */
  log(line: string): void;
  /** Clears the progress line and prints the one-line summary (always, TTY or not). */
  finish(summary: BatchSummary): void;
}

/**
 * The progress line on a TTY stderr (done/total, failed, rate, ETA), redrawn in place at most
 * four times a second; nothing on a pipe or a dumb terminal, where a summary line is all there is.
 */
export function createBatchProgress(stderr: NodeJS.WriteStream, options: { live: boolean; total: number | null }): BatchProgress {
  const started = Date.now();
  let counts: Readonly<BatchCounts> = { done: 0, complete: 0, failed: 0, cancelled: 0, invalid: 0, skipped: 0 };
  const line = createProgressLine(stderr, () => progressText(counts, options.total, Date.now() - started), { live: options.live, everyMs: REDRAW_MS });
  return {
    update(next) {
      counts = next;
      if (!line.shown) line.draw();
    },
    log: (text) => line.log(text, false),
    finish: (summary) => line.finish(summaryText(summary)),
  };
}

export function progressText(counts: Readonly<BatchCounts>, total: number | null, elapsedMs: number): string {
  const finished = counts.done + counts.invalid;
  const rate = elapsedMs > 0 ? (counts.done * 1000) / elapsedMs : 0;
  const parts = [total === null ? `batch: ${finished} done` : `batch: ${finished + counts.skipped}/${total}`];
  if (counts.failed) parts.push(`${counts.failed} failed`);
  if (counts.invalid) parts.push(`${counts.invalid} invalid`);
  parts.push(`${rate.toFixed(1)}/s`);
  const spent = spentText(counts);
  if (spent) parts.push(spent);
  if (total !== null && rate > 0) parts.push(`ETA ${duration(((total - finished - counts.skipped) / rate) * 1000)}`);
  return parts.join(' · ');
}

export function summaryText(summary: BatchSummary): string {
  const parts = [`${summary.complete} complete`];
  if (summary.failed) parts.push(`${summary.failed} failed`);
  if (summary.cancelled) parts.push(`${summary.cancelled} cancelled`);
  if (summary.invalid) parts.push(`${summary.invalid} invalid`);
  if (summary.skipped) parts.push(`${summary.skipped} skipped (complete in an earlier run)`);
  const spent = spentText(summary);
  const seconds = summary.elapsedMs / 1000;
  const rate = seconds > 0 ? summary.done / seconds : 0;
  const cause = summary.budgetStop ? ` (${summary.budgetStop})` : summary.decidedBy
    ? ` (line ${summary.decidedBy.line}${summary.decidedBy.id !== summary.decidedBy.line ? `, id ${JSON.stringify(summary.decidedBy.id)}` : ''}: ${sanitizeForTerminal(summary.decidedBy.message)})`
    : '';
  return `gatechat: batch: ${parts.join(', ')} in ${seconds.toFixed(1)} s (${rate.toFixed(1)}/s${spent ? `, ${spent}` : ''}); exit ${summary.exitCode}${cause}`;
}

/** SPEC §16: `$0.0123` spent so far (`~` none: a sum of figures and estimates), unknown ones counted apart. */
function spentText(counts: Readonly<BatchCounts>): string | null {
  if (!counts.done) return null;
  const unknown = counts.costUnknown ?? 0;
  if (unknown === counts.done) return 'cost unknown';
  return `${formatUsd(counts.costUsd ?? 0)} spent${unknown ? ` (${unknown} of unknown cost)` : ''}`;
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
