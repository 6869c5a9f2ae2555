// A batch's usage ledger is written before its output (SPEC §13, §16): a line in the --output file is
// skipped when the batch is rerun, so its request must already be in the ledger by the time the line
// is written — else a kill -9 between the two loses that request's cost for good. The ledger groups a
// turn's records into one write (ledger.ts); this pins that the grouping never puts the output first.
// The check runs inside the real process at each write (test/fixtures/preload/ledger-before-output.cjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { repoRoot, runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();
const preload = join(repoRoot, 'test', 'fixtures', 'preload', 'ledger-before-output.cjs');

describe('batch: the ledger before the output', () => {
  it('every output line has its ledger record when it is written (200 lines, 16 at once)', async () => {
    const input = join(ctx.user.home, 'order.jsonl');
    writeFileSync(input, Array.from({ length: 200 }, (_, i) => JSON.stringify(`prompt ${i}`)).join('\n') + '\n');
    const output = join(ctx.user.home, 'order.out.jsonl');
    const result = await runCli(['batch', input, '--output', output, '--concurrency', '16', '--base-url', ctx.base, '-m', 'echo'], {
      env: { ...ctx.user.env(), NODE_OPTIONS: `--require ${preload}`, GATECHAT_TEST_OUTPUT: output },
      timeoutMs: 60_000,
    });
    expect(result.stderr).not.toContain('ORDER VIOLATION');
    expect(result.code).toBe(0);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(200);
    const records = readFileSync(join(ctx.user.dataDir, 'usage.jsonl'), 'utf8').trim().split('\n');
    expect(records).toHaveLength(200);
  });
});
