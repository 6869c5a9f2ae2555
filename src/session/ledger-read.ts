import { closeSync, readSync } from 'node:fs';
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
    let buffer = Buffer.allocUnsafe(BLOCK);
    // Bytes of an unfinished line carried to the start of the buffer; text is decoded only up to the
    // last newline of a block, so a character is never split (a model or profile name need not be ASCII).
    let carried = 0;
    for (;;) {
      const read = readSync(fd, buffer, carried, buffer.length - carried, null);
      const end = carried + read;
      if (read === 0) {
        // The last line when the file does not end in a newline (an empty rest is no line: visitLine skips it).
        visitLine(buffer.toString('utf8', 0, carried), visit, range);
        return;
      }
      const lastNewline = buffer.lastIndexOf(0x0a, end - 1);
      if (lastNewline < 0) {
        carried = end;
        // One line longer than the buffer (not ours: ours are short): make room rather than split it.
        if (carried === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
        continue;
      }
      const text = buffer.toString('utf8', 0, lastNewline);
      let start = 0;
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        visitLine(text.slice(start, newline), visit, range);
        start = newline + 1;
      }
      visitLine(text.slice(start), visit, range);
      buffer.copy(buffer, 0, lastNewline + 1, end);
      carried = end - lastNewline - 1;
    }
  } finally {
    closeSync(fd);
  }
}

function visitLine(line: string, visit: (record: LedgerRecord) => void, range: { since?: string; until?: string }): void {
  if (!line.startsWith(TS_PREFIX)) return; // a torn or foreign line
  const ts = line.slice(TS_PREFIX.length, TS_PREFIX.length + TS_LENGTH);
  // Without a bound: '' is before and '\uffff' after every time.
  if (ts < (range.since ?? '') || ts >= (range.until ?? '\uffff')) return;
  const record = readFields(line, ts) ?? parseWhole(line, ts);
  if (record) visit(record);
}

// Number.isFinite is false for anything but a number, so no typeof check is needed before it.
const count = (v: unknown) => (Number.isFinite(v) && (v as number) >= 0 ? (v as number) : null);

/** JSON.parse of the whole line: for lines the field reader does not take (escapes, other key orders). */
function parseWhole(line: string, ts: string): LedgerRecord | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  return {
    ts,
    profile: typeof value.profile === 'string' ? value.profile : null,
    model: typeof value.model === 'string' ? value.model : '?',
    in: count(value.in),
    out: count(value.out),
    cache_read: count(value.cache_read),
    cache_write: count(value.cache_write),
    cost: count(value.cost),
    status: typeof value.status === 'string' ? value.status : '?',
  };
}

const NUMBER_KEYS = [',"in":', ',"out":', ',"cache_read":', ',"cache_write":', ',"cost":'];

/**
 * The fields of a line as ledger.ts writes it, in its key order, without JSON.parse (which made up most of
 * `gatechat usage`'s time over 100 000 lines). Anything unexpected — an escape in a string, a key out of
 * place — returns null and the line is parsed whole instead. Exported for its tests: whether a line takes this
 * path or JSON.parse's shows only in time, so they call it directly.
 */
export function readFields(line: string, ts: string): LedgerRecord | null {
  let at = TS_PREFIX.length + TS_LENGTH + 1;
  const key = (expected: string): boolean => {
    if (!line.startsWith(expected, at)) return false;
    at += expected.length;
    return true;
  };
  const string = (): string | null | undefined => {
    if (line.startsWith('null', at)) {
      at += 4;
      return null;
    }
    if (line[at] !== '"') return undefined;
    const end = line.indexOf('"', at + 1);
    if (end === -1) return undefined;
    const text = line.slice(at + 1, end);
    if (text.includes('\\')) return undefined;
    at = end + 1;
    return text;
  };
  const number = (): number | null | undefined => {
    let end = at;
    // Up to the comma before the next key: every number ledger.ts writes has a key after it (a `}` would be a
    // line out of order, which the key check after it refuses).
    for (let c = line.charCodeAt(end); end < line.length && c !== 0x2c; c = line.charCodeAt(++end));
    const text = line.slice(at, end);
    at = end;
    if (text === 'null') return null;
    const n = Number(text);
    return text !== '' && Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  if (!key(',"profile":')) return null;
  const profile = string();
  if (profile === undefined || !key(',"model":')) return null;
  const model = string();
  if (typeof model !== 'string' || !key(',"api":') || typeof string() !== 'string') return null;
  const fields: Array<number | null> = [];
  for (const name of NUMBER_KEYS) {
    if (!key(name)) return null;
    const value = number();
    if (value === undefined) return null;
    fields.push(value);
  }
  if (!key(',"cost_source":') || string() === undefined || !key(',"status":')) return null;
  const status = string();
  if (typeof status !== 'string') return null;
  return { ts, profile, model, in: fields[0], out: fields[1], cache_read: fields[2], cache_write: fields[3], cost: fields[4], status };
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
