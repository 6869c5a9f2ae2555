import type { RemoteBatch } from '../client/batch-api.js';
import { createProgressLine } from './progress-line.js';

/** How long since the batch was submitted: `12 s`, `3:04`, `2:05:09` (a batch may run for hours). */
export function elapsedText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  return s < 3600 ? `${Math.floor(s / 60)}:${pad(s % 60)}` : `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/**
 * `batch: in_progress · 120/300 · 1 failed · 0:12` — the vendor's status (several batches: how many
 * in each), the requests done out of all, those failed, and the time since submitting.
 */
export function remoteProgressText(batches: readonly RemoteBatch[], elapsedMs: number): string {
  const statuses = new Map<string, number>();
  let done = 0;
  let total = 0;
  let failed = 0;
  for (const batch of batches) {
    statuses.set(batch.status, (statuses.get(batch.status) ?? 0) + 1);
    done += batch.counts.done;
    total += batch.counts.total;
    failed += batch.counts.failed;
  }
  const status = batches.length === 1 ? batches[0].status : [...statuses].map(([name, n]) => `${n} ${name}`).join(', ');
  const parts = [`batch: ${status}`, `${done}/${total}`];
  if (failed) parts.push(`${failed} failed`);
  parts.push(elapsedText(elapsedMs));
  return parts.join(' · ');
}

const BAR_WIDTH = 20;

/** `[#####·····]` of the requests done. */
function bar(batches: readonly RemoteBatch[]): string {
  const total = batches.reduce((sum, b) => sum + b.counts.total, 0);
  const done = batches.reduce((sum, b) => sum + b.counts.done, 0);
  const filled = total > 0 ? Math.round((done / total) * BAR_WIDTH) : 0;
  return `[${'#'.repeat(filled)}${'·'.repeat(BAR_WIDTH - filled)}]`;
}

export interface RemoteProgress {
  /** The batches as last polled: redrawn in place on a terminal, nothing elsewhere. */
  update(batches: readonly RemoteBatch[]): void;
  /** A line above the progress line (always printed). */
  log(line: string): void;
  /** Clears the progress line and prints the summary. */
  finish(line: string): void;
}

/** A progress bar on a TTY stderr, redrawn every second while waiting (the elapsed time moves). */
export function createRemoteProgress(stderr: NodeJS.WriteStream, live: boolean): RemoteProgress {
  const started = Date.now();
  let last: readonly RemoteBatch[] | null = null;
  const line = createProgressLine(stderr, () => (last ? `${bar(last)} ${remoteProgressText(last, Date.now() - started)}` : null), { live, everyMs: 1000 });
  return {
    update(batches) {
      last = batches;
      line.draw();
    },
    log: (text) => line.log(text, true),
    finish: (text) => line.finish(text),
  };
}
