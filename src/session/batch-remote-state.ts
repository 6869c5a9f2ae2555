import { UsageError } from '../exit-codes.js';
import type { Api } from '../protocol/events.js';
import { readOwnFileIfExists, unlinkQuietly, writeFileAtomic } from '../storage/own-files.js';
import { storageError } from '../storage/storage-error.js';

/** One batch created on the gateway: which input lines it holds, and whether its results are written. */
export interface SavedBatch {
  id: string;
  /** The first and last input line it holds (lines between them complete in the output were left out). */
  first_line: number;
  last_line: number;
  requests: number;
  /** Chat: the uploaded input file. */
  input_file_id?: string;
  /** Its results are in the output: a rerun does not download them again. */
  collected?: boolean;
}

/**
 * `out.jsonl.batches` (SPEC §19): what a rerun needs to poll instead of submitting again. Written
 * whole (temp file, fsync, rename) after every batch created and every batch collected, so a kill -9
 * at any moment leaves the previous state or the next one, never half of one.
 */
export interface RemoteState {
  version: 1;
  api: Api;
  /** Where the batches live; a rerun against another gateway is refused, never sent there. */
  base_url: string;
  input: string;
  /** The output's size when the first batch was created: lines after it were written from these batches. */
  output_offset: number;
  batches: SavedBatch[];
}

export function statePathFor(output: string): string {
  return `${output}.batches`;
}

function malformed(path: string, why: string): UsageError {
  return new UsageError(`${path}: not a gatechat remote batch state (${why}); move it away to submit the batch again`);
}

/** The saved state, or null when there is none. A damaged file is one line (exit 2), never a new submission. */
export function readRemoteState(path: string): RemoteState | null {
  let text: string | null;
  try {
    text = readOwnFileIfExists(path);
  } catch (error) {
    throw storageError(error, 'cannot read the remote batch state', path);
  }
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed(path, 'not JSON');
  }
  const state = value as Partial<RemoteState> | null;
  if (state?.version !== 1) throw malformed(path, 'no "version": 1');
  if (state.api !== 'chat' && state.api !== 'messages') throw malformed(path, '"api"');
  if (typeof state.base_url !== 'string' || typeof state.input !== 'string' || typeof state.output_offset !== 'number') throw malformed(path, '"base_url", "input" or "output_offset"');
  if (!Array.isArray(state.batches)) throw malformed(path, '"batches"');
  for (const batch of state.batches as unknown[]) {
    const b = batch as Partial<SavedBatch> | null;
    if (typeof b?.id !== 'string' || !Number.isSafeInteger(b.first_line) || !Number.isSafeInteger(b.last_line) || typeof b.requests !== 'number') {
      throw malformed(path, 'a batch without "id", "first_line", "last_line" or "requests"');
    }
  }
  return state as RemoteState;
}

export function writeRemoteState(path: string, state: RemoteState): void {
  try {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent for any test — `{}` is writeFileAtomic's default (durable), and only a power cut between the write and the rename could tell an fsync from none
    writeFileAtomic(path, `${JSON.stringify(state, null, 1)}\n`, { durable: true });
  } catch (error) {
    throw storageError(error, 'cannot save the remote batch ids to', path);
  }
}

export function removeRemoteState(path: string): void {
  unlinkQuietly(path);
}
