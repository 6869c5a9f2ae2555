import { appendFileSync, chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { HISTORY_LIMIT } from './input-state.js';

/**
 * Prompts typed in the chat, one JSON string per line, kept across sessions (0600: prompts can be
 * private). Appended on each send; rewritten to the newest entries when it grows past twice the cap.
 */
export interface InputHistory {
  readonly entries: string[];
  append(text: string): void;
}

export function openInputHistory(file: string, options: { limit?: number; write?: boolean } = {}): InputHistory {
  const limit = options.limit ?? HISTORY_LIMIT;
  const write = options.write ?? true;
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8').split('\n');
  } catch {
    // No history yet.
  }
  const entries: string[] = [];
  for (const line of lines) {
    if (!line) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'string' && value) entries.push(value);
    } catch {
      // A torn last line from a crash: skip it.
    }
  }
  const kept = entries.slice(-limit);
  if (write && entries.length > limit * 2) {
    try {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, kept.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // Compaction is an optimisation; appending still works.
    }
  }
  let failed = false;
  return {
    entries: kept,
    append(text: string) {
      if (!write || failed || !text.trim()) return;
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        appendFileSync(file, `${JSON.stringify(text)}\n`, { mode: 0o600 });
        chmodSync(file, 0o600);
      } catch {
        // An unwritable data dir must not break the chat; history just is not kept.
        failed = true;
      }
    },
  };
}
