import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanLedger, spentToday, type LedgerRecord } from '../../src/session/ledger-read.js';
import { ledgerLine } from '../../src/session/ledger.js';
import { UsageAggregator } from '../../src/session/usage-report.js';
import { bar, sparkline, usageJson, usageTable, usageTsv } from '../../src/render/usage.js';
import { parseWhen } from '../../src/cli/commands/usage.js';
import type { ChatResult } from '../../src/protocol/events.js';

const dir = mkdtempSync(join(tmpdir(), 'gatechat-ledger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function result(model: string, cost: number | null, usage: Partial<ChatResult['usage']> = {}): ChatResult {
  return {
    text: 'never in the ledger', reasoning: null, tool_calls: [], finish_reason: 'stop', raw_finish_reason: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 4, cache_write_tokens: null, ...usage },
    model, api: 'chat', cid: null, cost: cost === null ? null : { usd: cost, source: 'gateway' },
  };
}

const line = (model: string, cost: number | null, ts: string, profile?: string) =>
  JSON.stringify(ledgerLine(result(model, cost), 'complete', model, { profile }, new Date(ts)));

describe('ledger reading', () => {
  it('reads what the ledger writes, escapes and all; skips torn and foreign lines; filters by time', () => {
    writeFileSync(
      join(dir, 'usage.jsonl'),
      [
        line('a/model', 0.5, '2026-11-20T10:00:00.000Z'),
        line('quote"and\\backslash ü', 0.25, '2026-11-21T10:00:00.000Z', 'work'),
        '{"ts":"2026-11-21T11:00:00.000Z","profile":null,"mod', // torn by a crash
        'not json at all',
        line('a/model', null, '2026-11-22T10:00:00.000Z'),
      ].join('\n'),
    );
    const seen: LedgerRecord[] = [];
    scanLedger((r) => seen.push(r), {}, dir);
    expect(seen.map((r) => [r.model, r.profile, r.cost, r.in, r.cache_read])).toEqual([
      ['a/model', null, 0.5, 10, 4],
      ['quote"and\\backslash ü', 'work', 0.25, 10, 4],
      ['a/model', null, null, 10, 4],
    ]);
    const ranged: string[] = [];
    scanLedger((r) => ranged.push(r.ts), { since: '2026-11-21T00:00:00.000Z', until: '2026-11-22T00:00:00.000Z' }, dir);
    expect(ranged).toEqual(['2026-11-21T10:00:00.000Z']);
  });

  it('spentToday sums one profile\'s known costs today and counts the unknown ones', () => {
    const now = new Date();
    writeFileSync(join(dir, 'usage.jsonl'), [line('m', 1, now.toISOString()), line('m', null, now.toISOString()), line('m', 2, now.toISOString(), 'work'), line('m', 4, '2020-01-01T00:00:00.000Z')].join('\n') + '\n');
    expect(spentToday(undefined, dir, now)).toEqual({ usd: 1, unknown: 1 });
    expect(spentToday('work', dir, now)).toEqual({ usd: 2, unknown: 0 });
  });

  it('a missing ledger is no spending, not an error', () => {
    expect(spentToday(undefined, join(dir, 'nowhere'))).toEqual({ usd: 0, unknown: 0 });
  });
});

describe('usage report', () => {
  const records: LedgerRecord[] = [
    { ts: '2026-11-20T12:00:00.000Z', profile: null, model: 'a', in: 100, out: 10, cache_read: 50, cache_write: 0, cost: 0.25, status: 'complete' },
    { ts: '2026-11-20T13:00:00.000Z', profile: 'work', model: 'b', in: 10, out: 1, cache_read: null, cache_write: null, cost: null, status: 'complete' },
    { ts: '2026-11-22T12:00:00.000Z', profile: null, model: 'a', in: 100, out: 10, cache_read: 0, cache_write: 0, cost: 0.5, status: 'complete' },
  ];
  const report = (by: 'day' | 'model' | 'profile') => {
    const aggregator = new UsageAggregator(by);
    for (const record of records) aggregator.add(record);
    return aggregator.report();
  };

  it('groups by model, dearest first, with the unknown share; totals; a daily series with the empty days', () => {
    const r = report('model');
    expect(r.rows.map((row) => [row.key, row.requests, row.cost_usd, row.unknown_cost_requests])).toEqual([['a', 2, 0.75, 0], ['b', 1, 0, 1]]);
    expect(r.total).toMatchObject({ requests: 3, input_tokens: 210, output_tokens: 21, cache_read_tokens: 50, cost_usd: 0.75, unknown_cost_requests: 1 });
    expect(r.daily.map((d) => d.cost_usd)).toEqual([0.25, 0, 0.5]);
  });

  it('piped: TSV with a header; --json: the rows named by their grouping', () => {
    expect(usageTsv(report('profile'), 'profile')).toBe(
      'profile\trequests\tinput_tokens\toutput_tokens\tcache_read_tokens\tcache_write_tokens\tcost_usd\tunknown_cost_share\n' +
        '\t2\t200\t20\t50\t0\t0.75\t0\n' +
        'work\t1\t10\t1\t0\t0\t0\t1\n',
    );
    expect(JSON.parse(usageJson(report('model'), 'model'))[1]).toEqual({
      model: 'b', requests: 1, input_tokens: 10, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0, unknown_cost_requests: 1, unknown_cost_share: 1,
    });
  });

  it('on a terminal: a bar per row, a total, the daily sparkline and the unknown-cost note', () => {
    const text = usageTable(report('model'), 'model', 'since 30d');
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^model\s+requests\s+in\s+out\s+cached\s+cost\s+unknown$/);
    expect(lines[1]).toMatch(/^a\s+2\s+200\s+20\s+50\s+\$0\.7500\s+█{24}$/);
    expect(lines[2]).toMatch(/^b\s+1\s+10\s+1\s+0\s+\$0\s+100%$/);
    expect(lines[3]).toMatch(/^total\s+3\s+210\s+21\s+50\s+\$0\.7500\s+33%$/);
    expect(text).toContain('daily cost 2026-11-20 ▄ █ 2026-11-22');
    expect(text).toContain('1 of 3 requests had no known cost');
    expect(usageTable(new UsageAggregator('day').report(), 'day', 'since 7d')).toBe('no requests in the ledger since 7d\n');
  });

  it('bars and sparklines scale to the largest value', () => {
    expect(bar(1, 1, 4)).toBe('████');
    expect(bar(1, 2, 4)).toBe('██');
    expect(bar(1, 16, 4)).toBe('▎');
    expect(bar(0, 1, 4)).toBe('');
    expect(sparkline([0, 1, 2, 4])).toBe(' ▂▄█');
  });

  it('--since / --until: 7d, 24h, 2w, today, yesterday, dates (until includes its day); nonsense refused', () => {
    const now = new Date(2026, 10, 25, 15, 30);
    expect(parseWhen('7d', '--since', now).getTime()).toBe(now.getTime() - 7 * 86_400_000);
    expect(parseWhen('24h', '--since', now).getTime()).toBe(now.getTime() - 86_400_000);
    expect(parseWhen('2w', '--since', now).getTime()).toBe(now.getTime() - 14 * 86_400_000);
    expect(parseWhen('today', '--since', now)).toEqual(new Date(2026, 10, 25));
    expect(parseWhen('yesterday', '--until', now)).toEqual(new Date(2026, 10, 25));
    expect(parseWhen('2026-11-01', '--since', now)).toEqual(new Date(2026, 10, 1));
    expect(parseWhen('2026-11-30', '--until', now)).toEqual(new Date(2026, 11, 1));
    expect(() => parseWhen('2026-02-31', '--since', now)).toThrow(/--since: expected 7d/);
    expect(() => parseWhen('last week', '--until', now)).toThrow(/--until/);
  });
});

describe('usage report: grouping, order and the daily series', () => {
  const rec = (ts: string, model: string, cost: number | null, extra: Partial<LedgerRecord> = {}): LedgerRecord => ({
    ts, profile: null, model, in: 1, out: 1, cache_read: null, cache_write: null, cost, status: 'complete', ...extra,
  });
  const noon = (y: number, m: number, d: number) => new Date(y, m - 1, d, 12).toISOString();

  it('local days are zero-padded', async () => {
    const { localDay } = await import('../../src/session/usage-report.js');
    expect(localDay(new Date(2026, 0, 5))).toBe('2026-01-05');
  });

  it('by day: oldest first whatever the order of the ledger or the costs; cache writes summed', () => {
    const aggregator = new UsageAggregator('day');
    aggregator.add(rec(noon(2026, 1, 9), 'a', 0.75, { cache_write: 3 }));
    aggregator.add(rec(noon(2026, 1, 3), 'a', 0.5, { cache_write: 4 }));
    aggregator.add(rec(noon(2026, 1, 6), 'b', 0.2));
    const r = aggregator.report();
    expect(r.rows.map((row) => row.key)).toEqual(['2026-01-03', '2026-01-06', '2026-01-09']);
    expect(r.total.cache_write_tokens).toBe(7);
    expect(r.daily.map((d) => d.day)).toEqual(['2026-01-03', '2026-01-04', '2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09']);
    expect(r.daily.map((d) => d.cost_usd)).toEqual([0.5, 0, 0, 0.2, 0, 0, 0.75]);
  });

  it('by model: dearest first, then most requests', () => {
    const aggregator = new UsageAggregator('model');
    aggregator.add(rec(noon(2026, 1, 3), 'cheap', 0.125));
    aggregator.add(rec(noon(2026, 1, 3), 'tie-few', 0.5));
    aggregator.add(rec(noon(2026, 1, 3), 'tie-many', 0.25));
    aggregator.add(rec(noon(2026, 1, 3), 'tie-many', 0.25));
    aggregator.add(rec(noon(2026, 1, 3), 'dear', 1));
    aggregator.add(rec(noon(2026, 1, 3), 'aaa-unknown', null));
    expect(aggregator.report().rows.map((row) => row.key)).toEqual(['dear', 'tie-many', 'tie-few', 'cheap', 'aaa-unknown']);
  });

  it('a range: the days it spans, one day when since and until share it, none without requests, at most 3660', () => {
    const aggregator = new UsageAggregator('profile');
    expect(aggregator.report({ since: new Date(2026, 0, 1), until: new Date(2026, 0, 9) }).daily).toEqual([]);
    aggregator.add(rec(noon(2026, 1, 3), 'a', 0.5, { profile: 'work' }));
    expect(aggregator.report({ since: new Date(2026, 0, 3), until: new Date(2026, 0, 3) }).daily).toEqual([{ day: '2026-01-03', cost_usd: 0.5 }]);
    expect(aggregator.report({ since: new Date(2000, 0, 1), until: new Date(2026, 0, 3) }).daily).toHaveLength(3660);
    expect(aggregator.report().rows.map((row) => row.key)).toEqual(['work']);
  });

  it('a half-hour time zone: one UTC hour across two local days is not cached as one', (ctx) => {
    const before = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata';
    try {
      // Worker threads (Stryker's) do not take a new TZ: nothing to test there.
      if (new Date('2026-11-20T18:10:00.000Z').getTimezoneOffset() !== -330) ctx.skip();
      const aggregator = new UsageAggregator('day');
      aggregator.add(rec('2026-11-20T18:10:00.000Z', 'a', 1)); // 23:40 local
      aggregator.add(rec('2026-11-20T18:40:00.000Z', 'a', 2)); // 00:10 local, the next day
      expect(aggregator.report().rows.map((row) => [row.key, row.cost_usd])).toEqual([['2026-11-20', 1], ['2026-11-21', 2]]);
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
});
