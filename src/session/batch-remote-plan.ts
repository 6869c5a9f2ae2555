import type { Api } from '../protocol/events.js';

/** What one vendor batch may hold (SPEC §19): requests, and bytes of the uploaded file or request body. */
export interface BatchLimits {
  requests: number;
  bytes: number;
}

export const BATCH_LIMITS: Record<Api, BatchLimits> = {
  chat: { requests: 50_000, bytes: 200 * 1024 * 1024 },
  messages: { requests: 100_000, bytes: 256 * 1024 * 1024 },
};

/** Room left in each batch for the envelope around the request lines (multipart headers, `{"requests":[`). */
export const ENVELOPE_BYTES = 1024;

/** A run of input lines that becomes one batch. */
export interface PlannedBatch {
  first_line: number;
  last_line: number;
  requests: number;
  /** The request lines' bytes, each with its separator (newline or comma). */
  bytes: number;
}

/**
 * Splits the request lines, in input order, into batches within the limits. Only the boundaries are
 * kept, so planning 100 000 lines costs no more memory than planning 100. A single request over the
 * byte limit is refused by the caller before this (it could never be sent).
 */
export async function planBatches(requests: AsyncIterable<{ line: number; bytes: number }>, limits: BatchLimits): Promise<PlannedBatch[]> {
  const planned: PlannedBatch[] = [];
  let current: PlannedBatch | null = null;
  for await (const { line, bytes } of requests) {
    const size = bytes + 1;
    if (current && (current.requests >= limits.requests || current.bytes + size > limits.bytes - ENVELOPE_BYTES)) current = null;
    if (!current) {
      current = { first_line: line, last_line: line, requests: 0, bytes: 0 };
      planned.push(current);
    }
    current.last_line = line;
    current.requests++;
    current.bytes += size;
  }
  return planned;
}
