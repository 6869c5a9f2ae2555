import { closeSync, fstatSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { openOwnFile } from '../storage/own-files.js';
import { ledgerPath } from './ledger.js';
import { dataDir } from './paths.js';

// Reading the ledger back (SPEC §16): `gatechat usage` and budget-daily. The file can hold hundreds
// of thousands of lines: it is read in blocks, and a line is parsed only once its time is in range
// (the time is the first field, so it is sliced out without parsing the rest).

/** The fields a report needs; anything missing or of the wrong type reads as null. */
export interface LedgerRecord {
  ts: string;
  profile: string | null;
  model: string;
  in: number | null;
  out: number | null;
  cache_read: number | null;
  cache_write: number | null;
  cost: number | null;
  status: string;
}

const BLOCK = 1 << 20;
const TS_PREFIX = '{"ts":"';
const TS_LENGTH = 24; // 2026-11-25T10:00:00.000Z

/** Calls `visit` for every well-formed line whose time is in [since, until) (ISO strings, UTC). */
export function scanLedger(visit: (record: LedgerRecord) => void, range: { since?: string; until?: string } = {}, dir = dataDir()): void {
  let fd: number;
  try {
    fd = openOwnFile(ledgerPath(dir), 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // nothing spent yet
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.allocUnsafe(BLOCK);
    // A block may end inside a character (a model or profile name need not be ASCII).
    const decoder = new StringDecoder('utf8');
    let carry = '';
    for (let at = 0; at < size; ) {
      const read = readSync(fd, buffer, 0, Math.min(BLOCK, size - at), at);
      if (read === 0) break;
      at += read;
      const text = carry + decoder.write(buffer.subarray(0, read));
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        visitLine(text.slice(start, end), visit, range);
        start = end + 1;
      }
      carry = text.slice(start);
    }
    if (carry !== '') visitLine(carry, visit, range);
  } finally {
    closeSync(fd);
  }
}

function visitLine(line: string, visit: (record: LedgerRecord) => void, range: { since?: string; until?: string }): void {
  if (!line.startsWith(TS_PREFIX)) return; // a torn or foreign line
  const ts = line.slice(TS_PREFIX.length, TS_PREFIX.length + TS_LENGTH);
  if ((range.since !== undefined && ts < range.since) || (range.until !== undefined && ts >= range.until)) return;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
  visit({
    ts,
    profile: typeof value.profile === 'string' ? value.profile : null,
    model: typeof value.model === 'string' ? value.model : '?',
    in: count(value.in),
    out: count(value.out),
    cache_read: count(value.cache_read),
    cache_write: count(value.cache_write),
    cost: count(value.cost),
    status: typeof value.status === 'string' ? value.status : '?',
  });
}

/** The start of the local day `now` is in, as an ISO (UTC) time. */
export function startOfLocalDay(now = new Date()): string {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate()).toISOString();
}

/** What a profile spent today by the ledger (budget-daily): unknown costs counted apart. */
export function spentToday(profile: string | undefined, dir = dataDir(), now = new Date()): { usd: number; unknown: number } {
  const total = { usd: 0, unknown: 0 };
  scanLedger(
    (record) => {
      if (record.profile !== (profile ?? null)) return;
      if (record.cost === null) total.unknown++;
      else total.usd += record.cost;
    },
    { since: startOfLocalDay(now) },
    dir,
  );
  return total;
}
