import { dirname } from 'node:path';
import { lockFile } from '../../storage/file-lock.js';
import { appendOwnRecord, ensurePrivateDir, readOwnFileIfExists, writeFileAtomic } from '../../storage/own-files.js';
import { storageError } from '../../storage/storage-error.js';
import { HISTORY_LIMIT } from './input-state.js';

/**
 * Prompts typed in the chat, one JSON string per line, kept across sessions (0600: prompts can be
 * private). Appended on each send; rewritten to the newest entries when it grows past twice the cap.
 * Never opened through a symlink planted in its place (storage/own-files.ts). Several chats may run
 * at once: appends are single O_APPEND writes, and the rewrite holds the file's lock and re-reads it
 * under the lock, so an entry another chat appended meanwhile is kept.
 */
export interface InputHistory {
  readonly entries: string[];
  append(text: string): void;
}

/** How long a send waits for another chat's rewrite (a few milliseconds of work). */
const LOCK_WAIT_MS = 2000;

export function openInputHistory(file: string, options: { limit?: number; write?: boolean; warn?: (line: string) => void } = {}): InputHistory {
  const limit = options.limit ?? HISTORY_LIMIT;
  const write = options.write ?? true;
  let entries: string[] = [];
  let failed = false;
  let opened = false;
  const fail = (error: unknown): void => {
    // An unwritable data dir must not break the chat; history just is not kept. Said when the chat
    // opens (a link planted in its place); later, a line on stderr would land inside the live view.
    if (!opened) options.warn?.(`warning: input history not kept: ${storageError(error, 'cannot use', file).message}`);
    failed = true;
  };
  try {
    entries = parseEntries(readOwnFileIfExists(file) ?? '');
  } catch (error) {
    // A link or a directory in its place: neither read nor written.
    fail(error);
  }
  if (write && !failed && entries.length > limit * 2) {
    try {
      compact(file, limit);
    } catch {
      // Compaction is an optimisation; appending still works.
    }
  }
  opened = true;
  return {
    entries: entries.slice(-limit),
    append(text: string) {
      if (!write || failed || !text.trim()) return;
      try {
        ensurePrivateDir(dirname(file));
        const lock = lockFile(file, { waitMs: LOCK_WAIT_MS, what: 'the input history' });
        try {
          appendOwnRecord(file, `${JSON.stringify(text)}\n`, { create: true });
        } finally {
          lock.release();
        }
      } catch (error) {
        fail(error);
      }
    },
  };
}

/** Keeps the newest `limit` entries, read again under the lock so nothing appended meanwhile is lost. */
function compact(file: string, limit: number): void {
  const lock = lockFile(file, { waitMs: 0, what: 'the input history' });
  try {
    const kept = parseEntries(readOwnFileIfExists(file) ?? '').slice(-limit);
    writeFileAtomic(file, kept.map((e) => `${JSON.stringify(e)}\n`).join(''), { durable: false });
  } finally {
    lock.release();
  }
}

function parseEntries(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'string' && value) entries.push(value);
    } catch {
      // A torn last line from a crash: skip it.
    }
  }
  return entries;
}
