import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFields, scanLedger, type LedgerRecord } from '../../src/session/ledger-read.js';
import { ledgerLine, ledgerPath, UsageLedger } from '../../src/session/ledger.js';
import type { ChatResult } from '../../src/protocol/events.js';

// The ledger (SPEC §16) written and read back directly: ledger.ts's lines and UsageLedger, ledger-read.ts's
// block reader, field reader and whole-line fallback. test/session/usage-report.test.ts has the reports.

const root = mkdtempSync(join(tmpdir(), 'gatechat-ledger-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

const T = '2026-11-20T10:00:00.000Z';

function result(overrides: Partial<ChatResult> = {}): ChatResult {
  return {
    text: 'never in the ledger', reasoning: null, tool_calls: [], finish_reason: 'stop', raw_finish_reason: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 4, cache_write_tokens: 7 },
    model: 'answering/model', api: 'chat', cid: null, cost: { usd: 0.5, source: 'prices' },
    ...overrides,
  };
}

/** The descriptors this process holds open on `path` (Linux: /proc/self/fd), or null where that cannot be seen. */
function descriptorsOn(path: string): string[] | null {
  if (!existsSync('/proc/self/fd')) return null;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed while listing (the listing's own descriptor)
    }
  });
}

function scan(dir: string, range: { since?: string; until?: string } = {}): LedgerRecord[] {
  const seen: LedgerRecord[] = [];
  scanLedger((r) => seen.push(r), range, dir);
  return seen;
}

function ledgerFile(lines: string, dir = freshDir()): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(ledgerPath(dir), lines);
  return dir;
}

describe('ledgerLine: what one request leaves in the ledger', () => {
  it('the answering model, every token count, the cost and its source, the fallback, conversation and batch', () => {
    const line = ledgerLine(result({ cid: 'c-1', fallback_from: 'asked/model' }), 'interrupted', 'asked/model', { profile: 'work', batch: 'out.jsonl' }, new Date(T));
    expect(JSON.stringify(line)).toBe(
      `{"ts":"${T}","profile":"work","model":"answering/model","api":"chat","in":10,"out":5,"cache_read":4,"cache_write":7,` +
        '"cost":0.5,"cost_source":"prices","status":"interrupted","fallback_from":"asked/model","cid":"c-1","batch":"out.jsonl"}',
    );
  });

  it('without an answering model, the requested one; unknown counts and cost are null; absent tags are absent', () => {
    const line = ledgerLine(result({ model: null, cost: null, usage: { input_tokens: null, output_tokens: null } }), 'error', 'asked/model', { profile: undefined }, new Date(T));
    expect(line).toStrictEqual({
      ts: T, profile: null, model: 'asked/model', api: 'chat', in: null, out: null, cache_read: null, cache_write: null, cost: null, cost_source: null, status: 'error',
    });
    expect(Object.keys(line)).not.toContain('batch');
    // A batch reading from stdin is `-`; an empty id is still an id.
    expect(ledgerLine(result(), 'complete', 'm', { profile: undefined, batch: '' }).batch).toBe('');
  });
});

describe('UsageLedger: appending, a batch\'s one descriptor, a ledger that cannot be written', () => {
  it('creates the data dir and the file, one line per request, and holds no descriptor between them', () => {
    const dir = join(freshDir(), 'data');
    const warnings: string[] = [];
    const ledger = new UsageLedger({ profile: 'work' }, (w) => warnings.push(w), dir);
    ledger.record(result(), 'complete', 'asked/model');
    ledger.record(result({ model: null }), 'cancelled', 'asked/model');
    const lines = readFileSync(ledgerPath(dir), 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(lines.slice(0, 2).map((l) => JSON.parse(l) as Record<string, unknown>).map((r) => [r.profile, r.model, r.status])).toEqual([
      ['work', 'answering/model', 'complete'],
      ['work', 'asked/model', 'cancelled'],
    ]);
    expect(descriptorsOn(ledgerPath(dir)) ?? []).toEqual([]);
    ledger.close(); // nothing to close: harmless
    expect(warnings).toEqual([]);
  });

  it('keepOpen (batch): one descriptor from the first record until close(); a turn\'s records written at its end', async () => {
    const dir = join(freshDir(), 'data');
    const warnings: string[] = [];
    const ledger = new UsageLedger({ profile: undefined, batch: 'in.jsonl' }, (w) => warnings.push(w), dir, { keepOpen: true });
    ledger.record(result(), 'complete', 'm');
    ledger.record(result(), 'complete', 'm');
    await new Promise((resolve) => setImmediate(resolve));
    const open = descriptorsOn(ledgerPath(dir));
    if (open !== null) expect(open).toHaveLength(1);
    const lines = readFileSync(ledgerPath(dir), 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as Record<string, unknown>).batch)).toEqual(['in.jsonl', 'in.jsonl']);
    ledger.close();
    expect(descriptorsOn(ledgerPath(dir)) ?? []).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('keepOpen (batch): close() writes the records of the turn it ends, whole lines after a torn one', () => {
    const dir = join(freshDir(), 'data');
    mkdirSync(dir, { recursive: true });
    writeFileSync(ledgerPath(dir), '{"torn');
    const warnings: string[] = [];
    const ledger = new UsageLedger({ profile: 'p' }, (w) => warnings.push(w), dir, { keepOpen: true });
    ledger.record(result(), 'complete', 'm');
    ledger.record(result(), 'cancelled', 'm');
    ledger.close();
    const lines = readFileSync(ledgerPath(dir), 'utf8').split('\n');
    expect(lines[0]).toBe('{"torn');
    expect(lines.slice(1, 3).map((l) => (JSON.parse(l) as Record<string, unknown>).status)).toEqual(['complete', 'cancelled']);
    expect(lines[3]).toBe('');
    expect(lines).toHaveLength(4);
    expect(warnings).toEqual([]);
  });

  it('keepOpen (batch): a ledger that cannot be written is one warning, however many turns fail', async () => {
    const dir = freshDir();
    mkdirSync(ledgerPath(dir), { recursive: true });
    const warnings: string[] = [];
    const ledger = new UsageLedger({ profile: undefined }, (w) => warnings.push(w), dir, { keepOpen: true });
    ledger.record(result(), 'complete', 'm');
    await new Promise((resolve) => setImmediate(resolve));
    ledger.record(result(), 'complete', 'm');
    ledger.close();
    expect(warnings).toEqual([
      `warning: this request is not in the usage ledger: cannot write to ${ledgerPath(dir)}: it is a directory (EISDIR) (turn the ledger off: gatechat config set ledger false)`,
    ]);
  });

  it('a ledger that cannot be written: one warning naming the file and how to turn it off, the answer unharmed', () => {
    const dir = freshDir();
    mkdirSync(ledgerPath(dir), { recursive: true }); // a directory where the file should be
    const warnings: string[] = [];
    const ledger = new UsageLedger({ profile: undefined }, (w) => warnings.push(w), dir);
    expect(() => ledger.record(result(), 'complete', 'm')).not.toThrow();
    ledger.record(result(), 'complete', 'm');
    expect(warnings).toEqual([
      `warning: this request is not in the usage ledger: cannot write to ${ledgerPath(dir)}: it is a directory (EISDIR) (turn the ledger off: gatechat config set ledger false)`,
    ]);
  });
});

// The line ledger.ts writes (checked against ledgerLine below), and the record the field reader makes of it.
const CANONICAL =
  `{"ts":"${T}","profile":"work","model":"a/model","api":"chat","in":10,"out":5,"cache_read":4,"cache_write":null,"cost":0.5,"cost_source":"gateway","status":"complete"}`;
const RECORD: LedgerRecord = { ts: T, profile: 'work', model: 'a/model', in: 10, out: 5, cache_read: 4, cache_write: null, cost: 0.5, status: 'complete' };

describe('readFields: the fast path takes every line ledger.ts writes and nothing else', () => {
  it('reads the lines ledger.ts writes, with the optional keys after status too', () => {
    const written = JSON.stringify(
      ledgerLine(result({ model: 'a/model', cost: { usd: 0.5, source: 'gateway' }, usage: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 4, cache_write_tokens: null } }), 'complete', 'x', { profile: 'work' }, new Date(T)),
    );
    expect(written).toBe(CANONICAL);
    expect(readFields(CANONICAL, T)).toEqual(RECORD);
    expect(readFields(CANONICAL.replace('}', ',"fallback_from":"b","cid":"c","batch":"-"}'), T)).toEqual(RECORD);
    expect(readFields(CANONICAL.replace('"work"', 'null').replace('"cost":0.5,"cost_source":"gateway"', '"cost":null,"cost_source":null'), T)).toEqual({
      ...RECORD, profile: null, cost: null,
    });
    expect(readFields(CANONICAL.replace('"in":10', '"in":0').replace('"out":5', '"out":1.25e3'), T)).toEqual({ ...RECORD, in: 0, out: 1250 });
    expect(readFields(CANONICAL.replace('"status":"complete"', '"status":""'), T)).toEqual({ ...RECORD, status: '' });
  });

  it.each([
    ['a key out of place', CANONICAL.replace('"profile"', '"profilX"')],
    ['another key order', CANONICAL.replace('"profile":"work","model":"a/model"', '"model":"a/model","profile":"work"')],
    ['a value that is no string', CANONICAL.replace('"work"', 'Xwork"')],
    ['an empty value', CANONICAL.replace('"work"', '')],
    ['a model that is null', CANONICAL.replace('"a/model"', 'null')],
    ['an escape in a string', CANONICAL.replace('"a/model"', '"a\\\\model"')],
    ['an api that is no string', CANONICAL.replace('"chat"', '5')],
    ['a negative count', CANONICAL.replace('"in":10', '"in":-1')],
    ['an empty count', CANONICAL.replace('"in":10', '"in":')],
    ['a count too large for a number', CANONICAL.replace('"out":5', '"out":1e999')],
    ['a count in quotes', CANONICAL.replace('"out":5', '"out":"5"')],
    ['a count that is a word', CANONICAL.replace('"cache_read":4', '"cache_read":four')],
    ['a cost source that is no string', CANONICAL.replace('"gateway"', '5')],
    ['a status that is null', CANONICAL.replace('"complete"', 'null')],
    ['a line torn in the status', CANONICAL.slice(0, CANONICAL.indexOf('complete') + 4)],
    ['a line torn after a number', CANONICAL.slice(0, CANONICAL.indexOf(',"cost_source"'))],
  ])('leaves %s to JSON.parse', (_what, line) => {
    expect(readFields(line, T)).toBeNull();
  });
});

describe('scanLedger: reading the ledger back', () => {
  it('lines the field reader leaves are parsed whole; a wrong type reads as null or ?', () => {
    const dir = ledgerFile(
      [
        `{"ts":"${T}","status":"complete","in":"5","out":1e999,"cache_read":-1,"cache_write":0,"cost":0,"profile":5}`,
        `{"ts":"${T}","model":"m","profile":"p","status":7,"in":3,"cost":0.25}`,
        `{"ts":"${T}","model":7,"status":"error"}`,
        `{"ts":"${T}","profile":null,"model":"back\\\\slash","api":"chat","in":1,"out":2,"cache_read":null,"cache_write":null,"cost":null,"cost_source":null,"status":"complete"}`,
        // JSON, but not a ledger line: the time must come first.
        `{"model":"m","ts":"${T}","profile":null,"status":"complete"}`,
      ].join('\n') + '\n',
    );
    expect(scan(dir)).toEqual([
      { ts: T, profile: null, model: '?', in: null, out: null, cache_read: null, cache_write: 0, cost: 0, status: 'complete' },
      { ts: T, profile: 'p', model: 'm', in: 3, out: null, cache_read: null, cache_write: null, cost: 0.25, status: '?' },
      { ts: T, profile: null, model: '?', in: null, out: null, cache_read: null, cache_write: null, cost: null, status: 'error' },
      { ts: T, profile: null, model: 'back\\slash', in: 1, out: 2, cache_read: null, cache_write: null, cost: null, status: 'complete' },
    ]);
  });

  it('since includes its own instant, until excludes its own', () => {
    const at = (ts: string) => CANONICAL.replace(T, ts);
    const dir = ledgerFile([at('2026-11-20T00:00:00.000Z'), at('2026-11-20T12:00:00.000Z'), at('2026-11-21T00:00:00.000Z')].join('\n') + '\n');
    expect(scan(dir, { since: '2026-11-20T12:00:00.000Z' }).map((r) => r.ts)).toEqual(['2026-11-20T12:00:00.000Z', '2026-11-21T00:00:00.000Z']);
    expect(scan(dir, { until: '2026-11-20T12:00:00.000Z' }).map((r) => r.ts)).toEqual(['2026-11-20T00:00:00.000Z']);
    expect(scan(dir).map((r) => r.ts)).toHaveLength(3);
  });

  it('over block boundaries: lines cut between two reads, no newline at the end', () => {
    // 5 300 lines of exactly 200 bytes: the first 1 MiB read ends inside a line, the last line has no newline.
    const lines: string[] = [];
    for (let i = 0; i < 5_300; i++) {
      const line = CANONICAL.replace('"in":10', `"in":${i}`);
      lines.push(line.replace('"a/model"', `"${'a'.repeat(199 - line.length + 7)}"`));
    }
    expect(new Set(lines.map((l) => l.length))).toEqual(new Set([199]));
    const dir = ledgerFile(lines.join('\n'));
    const seen = scan(dir);
    expect(seen).toHaveLength(5_300);
    const models = lines.map((l) => (JSON.parse(l) as { model: string }).model);
    expect(seen.every((r, i) => r.in === i && r.model === models[i] && r.status === 'complete')).toBe(true);
  });

  it('a line longer than a block (1 MiB) is read whole, and the lines after it too', () => {
    const long = CANONICAL.replace('"a/model"', `"${'m'.repeat(1_500_000)}"`);
    const dir = ledgerFile(['x'.repeat(1_200_000), long, CANONICAL].join('\n') + '\n');
    const seen = scan(dir);
    expect(seen.map((r) => r.model.length)).toEqual([1_500_000, 7]);
  });

  it('a file that starts with a newline and ends without one', () => {
    const dir = ledgerFile(`\n${CANONICAL}`);
    expect(scan(dir)).toEqual([RECORD]);
  });

  it('opens the ledger read-only and closes it, also when the visitor throws', () => {
    const dir = ledgerFile(`${CANONICAL}\n${CANONICAL}\n`);
    const path = ledgerPath(dir);
    const flags: number[] = [];
    scanLedger(() => {
      for (const fd of descriptorsOn(path) ?? []) {
        const line = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').find((l) => l.startsWith('flags:'))!;
        flags.push(Number.parseInt(line.split(/\s+/)[1], 8));
      }
    }, {}, dir);
    // O_ACCMODE (3) is O_RDONLY (0): a ledger this user may only read can still be reported on.
    if (descriptorsOn(path) !== null) expect(flags.map((f) => f & 3)).toEqual([0, 0]);
    expect(descriptorsOn(path) ?? []).toEqual([]);
    expect(() =>
      scanLedger(() => {
        throw new Error('visitor failed');
      }, {}, dir),
    ).toThrow('visitor failed');
    expect(descriptorsOn(path) ?? []).toEqual([]);
  });

  it('no ledger is nothing spent; a ledger that cannot be read is an error', () => {
    expect(scan(freshDir())).toEqual([]);
    const dir = freshDir();
    mkdirSync(ledgerPath(dir), { recursive: true });
    expect(() => scan(dir)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });
});
