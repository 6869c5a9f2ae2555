// SPEC §16 ledger: one line per request in usage.jsonl in the data dir, no prompt or answer text,
// written with --no-save too, whole lines under concurrent runs, stopped by `ledger false`.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();
const ledger = () => join(ctx.user.dataDir, 'usage.jsonl');
const lines = () => readFileSync(ledger(), 'utf8').split('\n').filter((line) => line !== '');

describe('usage ledger', () => {
  it('20 runs at once: 20 whole lines, no prompt or answer text, their costs the answers\' costs', async () => {
    const runs = Array.from({ length: 20 }, (_, i) =>
      runCli(['--base-url', ctx.base, '--json', '-m', i % 2 ? 'echo+cost' : 'echo+litellm-cost', ...(i % 3 ? ['--no-save'] : []), `secret prompt ${i}`], {
        env: ctx.user.env(),
        timeoutMs: 60_000,
      }),
    );
    const results = await Promise.all(runs);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(ledger(), 'utf8');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('prompt');
    const records = lines().map((line) => JSON.parse(line));
    expect(records).toHaveLength(20);
    expect(statSync(ledger()).mode & 0o777).toBe(0o600);
    for (const record of records) {
      expect(record).toMatchObject({ model: expect.stringMatching(/^echo\+/), api: 'chat', in: 3, out: 3, cost_source: 'gateway', status: 'complete', profile: null });
      expect(Date.parse(record.ts)).not.toBeNaN();
    }
    const answers = results.map((result) => JSON.parse(result.stdout));
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    expect(sum(records.map((r) => r.cost))).toBeCloseTo(sum(answers.map((a) => a.cost.usd)), 12);
    // Saved runs name their conversation; --no-save runs have none to name.
    expect(records.filter((r) => r.cid).length).toBe(answers.filter((a) => a.cid).length);
  });

  it('a failed request is a line too (status error, no tokens, cost unknown)', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'fail-500-noretry', 'hi'], { env: ctx.user.env() });
    expect(result.code).toBe(6);
    const [record] = lines().map((line) => JSON.parse(line));
    expect(record).toMatchObject({ model: 'fail-500-noretry', status: 'error', in: null, out: null, cost: null, cost_source: null });
  });

  it('a ledger that cannot be written (a directory in its place) is one warning line naming it and why; the answer stands', async () => {
    mkdirSync(ledger(), { recursive: true });
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '--no-save', 'hi'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('hi\n');
    expect(result.stderr).toBe(
      `gatechat: warning: this request is not in the usage ledger: cannot write to ${ledger()}: it is a directory (EISDIR) (turn the ledger off: gatechat config set ledger false)\n`,
    );
  });

  it('config ledger false writes nothing', async () => {
    mkdirSync(ctx.user.configDir, { recursive: true });
    writeFileSync(join(ctx.user.configDir, 'config.json'), JSON.stringify({ ledger: false }));
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(ledger())).toBe(false);
  });
});

describe('gatechat usage', () => {
  it('agrees with the answers it sums: --json by model, TSV piped, bad options refused', async () => {
    const env = ctx.user.env();
    const answers = [];
    for (const model of ['echo+cost', 'echo+cost', 'echo']) {
      const result = await runCli(['--base-url', ctx.base, '--json', '--no-save', '-m', model, 'a b c d'], { env });
      expect(result.code, result.stderr).toBe(0);
      answers.push(JSON.parse(result.stdout));
    }
    const report = await runCli(['usage', '--json', '--by', 'model'], { env });
    expect(report.code, report.stderr).toBe(0);
    const rows = JSON.parse(report.stdout);
    const priced = answers.filter((a) => a.cost !== null);
    expect(rows).toEqual([
      { model: 'echo+cost', requests: 2, input_tokens: 8, output_tokens: 8, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: priced[0].cost.usd + priced[1].cost.usd, unknown_cost_requests: 0, unknown_cost_share: 0 },
      { model: 'echo', requests: 1, input_tokens: 4, output_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0, unknown_cost_requests: 1, unknown_cost_share: 1 },
    ]);
    const tsv = await runCli(['usage', '--since', 'today'], { env });
    expect(tsv.code, tsv.stderr).toBe(0);
    const [header, today, ...rest] = tsv.stdout.trim().split('\n');
    expect(header).toBe('day\trequests\tinput_tokens\toutput_tokens\tcache_read_tokens\tcache_write_tokens\tcost_usd\tunknown_cost_share');
    expect(today.split('\t').slice(1, 3)).toEqual(['3', '12']);
    expect(rest).toEqual([]);
    for (const args of [['--by', 'week'], ['--since', 'soon']]) {
      const bad = await runCli(['usage', ...args], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(new RegExp(`^gatechat: ${args[0]}: expected`));
    }
  });
});
