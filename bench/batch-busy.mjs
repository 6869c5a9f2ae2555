// Batch against a concurrency limit (SPEC §13, README "busy-K"): 40 prompts to `busy-2` at
// --concurrency 16 beside the same file at --concurrency 2 (what a user who knew the limit would
// pick), runs interleaved against one dev gateway (its own process). Counts failed lines per run and
// prints the throughput ratio. Prints numbers; asserts nothing.
// Run: npm run build && node bench/batch-busy.mjs   (RUNS=10, PROMPTS=40, LIMIT=2, HIGH=16; BENCH_BIN=other/bin/gatechat.js)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, fmt, measure, median, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 10);
const prompts = Number(process.env.PROMPTS ?? 40);
const limit = Number(process.env.LIMIT ?? 2);
const high = Number(process.env.HIGH ?? 16);
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'gatechat-bench-busy-'));
const env = { ...process.env, GATECHAT_CONFIG_DIR: join(dir, 'config'), GATECHAT_DATA_DIR: join(dir, 'data') };
for (const key of Object.keys(env)) if (key.startsWith('GATECHAT_') && !/_(CONFIG|DATA)_DIR$/.test(key)) delete env[key];

const input = join(dir, 'prompts.jsonl');
writeFileSync(input, Array.from({ length: prompts }, (_, i) => JSON.stringify(`busy prompt ${i + 1}`)).join('\n') + '\n');

const gateway = await startDevGateway();
const client = process.env.BENCH_BIN ?? bin;
let outputs = 0;

/** One batch run to a fresh --output (a reused one would resume); its wall time and failed lines. */
async function run(concurrency) {
  const output = join(dir, `out-${++outputs}.jsonl`);
  const argv = [node, client, 'batch', input, '--output', output, '--base-url', gateway.base, '-m', `busy-${limit}`, '--concurrency', String(concurrency)];
  const result = await measure(argv, { env });
  const lines = readFileSync(output, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  const failed = prompts - lines.filter((l) => l.status === 'complete').length;
  return { ...result, failed };
}

try {
  await run(limit); // warm-up (file cache, the gateway's JIT), not counted
  const atHigh = [];
  const atLimit = [];
  for (let i = 0; i < runs; i++) {
    atLimit.push(await run(limit));
    atHigh.push(await run(high));
  }
  const rate = (results) => prompts / (median(results.map((r) => r.wallMs)) / 1000);
  const clean = (results) => results.filter((r) => r.code === 0 && r.failed === 0).length;
  console.log(`\ngatechat batch against a concurrency limit — ${prompts} prompts to busy-${limit}, median of ${runs} interleaved runs, Node ${process.version}\n`);
  console.log('| run | median wall s | prompts/s | runs with no failed line | failed lines in all |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, results] of [[`--concurrency ${limit} (the limit)`, atLimit], [`--concurrency ${high}`, atHigh]]) {
    const failedLines = results.reduce((sum, r) => sum + r.failed, 0);
    console.log(`| ${name} | ${fmt(median(results.map((r) => r.wallMs)) / 1000, 2)} | ${fmt(rate(results), 1)} | ${clean(results)} of ${runs} | ${failedLines} |`);
  }
  console.log(`\nthroughput: --concurrency ${high} / --concurrency ${limit} = ${fmt(rate(atHigh) / rate(atLimit), 2)}× (target ≥ 0.8×, and no failed line)`);
} finally {
  gateway.stop();
  rmSync(dir, { recursive: true, force: true });
}
