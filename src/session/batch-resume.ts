import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { UsageError } from '../exit-codes.js';
import { tryParseJson } from '../protocol/json.js';
import { idKey, readLines } from './batch-input.js';
import { LineBits } from './line-bits.js';

/** Ids by idKey, as a batch asks about them: whether one is in, and how many are. */
export interface IdKeys {
  has(key: string): boolean;
  readonly size: number;
}

/** Numeric ids up to this are kept as bits (at most 2 MiB of them); larger or odd ones as strings. */
const MAX_BIT_ID = 2 ** 24 - 1;
/** The key of a numeric id that is a plain non-negative integer (idKey: `#` and its digits). */
const LINE_NUMBER_KEY = /^#(?:0|[1-9]\d{0,7})$/;

/**
 * The ids complete in an earlier run's output. Most are line numbers (a line without an id has its
 * number as id), kept as one bit each: a resume of a 100 000-line output held 100 000 strings in a Set
 * for the whole run otherwise (SPEC §13: memory does not grow with the number of lines). Other ids
 * (strings, large or fractional numbers) are kept by key.
 */
export class CompleteIds implements IdKeys, Iterable<string> {
  private readonly lines = new LineBits();
  private lineCount = 0;
  private readonly keys = new Set<string>();

  get size(): number {
    return this.lineCount + this.keys.size;
  }

  add(key: string): void {
    const line = lineNumberOf(key);
    if (line === null) this.keys.add(key);
    else if (this.lines.add(line)) this.lineCount++;
  }

  has(key: string): boolean {
    if (this.size === 0) return false;
    const line = lineNumberOf(key);
    return line === null ? this.keys.has(key) : this.lines.has(line);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (const line of this.lines) yield `#${line}`;
    yield* this.keys;
  }
}

function lineNumberOf(key: string): number | null {
  if (!LINE_NUMBER_KEY.test(key)) return null;
  const line = Number(key.slice(1));
  return line <= MAX_BIT_ID ? line : null;
}

export interface ResumeState {
  /** Ids (by idKey) already answered completely in the output file: skipped this time. */
  complete: CompleteIds;
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
  const state: ResumeState = { complete: new CompleteIds(), endsMidLine: false, unreadable: 0 };
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
