import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { UsageError } from '../exit-codes.js';
import { tryParseJson } from '../protocol/json.js';
import { idKey, readLines } from './batch-input.js';

export interface ResumeState {
  /** Ids (by idKey) already answered completely in the output file: skipped this time. */
  complete: Set<string>;
  /** The file ends inside a line (a write torn by a crash): appending starts a new line first. */
  endsMidLine: boolean;
  /** Lines that are not a JSON object with an id (torn or foreign): ignored. */
  unreadable: number;
}

/**
 * Reads an existing `--output` file, one line at a time, for the ids whose answer is complete; failed,
 * cancelled and invalid lines are not, so they are sent again. Only the id set is kept in memory.
 */
export async function readResumeState(path: string): Promise<ResumeState> {
  const state: ResumeState = { complete: new Set(), endsMidLine: false, unreadable: 0 };
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new UsageError(`--output: ${path} is not a regular file`);
    size = stat.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return state;
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--output: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (size === 0) return state;
  state.endsMidLine = lastByte(path, size) !== 0x0a;
  for await (const line of readLines(createReadStream(path), Number.MAX_SAFE_INTEGER)) {
    if (line.text.trim() === '') continue;
    const parsed = tryParseJson(line.text);
    // Not JSON, or JSON without an id: unreadable alike.
    const { id, status } = ((parsed.ok ? parsed.value : null) ?? {}) as { id?: unknown; status?: unknown };
    if (typeof id !== 'string' && typeof id !== 'number') {
      state.unreadable++;
      continue;
    }
    if (status === 'complete') state.complete.add(idKey(id));
  }
  return state;
}

function lastByte(path: string, size: number): number {
  const fd = openSync(path, 'r');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte[0];
  } finally {
    closeSync(fd);
  }
}
