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

  it('config ledger false writes nothing', async () => {
    mkdirSync(ctx.user.configDir, { recursive: true });
    writeFileSync(join(ctx.user.configDir, 'config.json'), JSON.stringify({ ledger: false }));
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', 'hi'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(ledger())).toBe(false);
  });
});
