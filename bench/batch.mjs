// Batch benchmark (SPEC §10): `gatechat batch` over 2000 prompts at --concurrency 16 against the dev
// gateway (its own process), beside a plain undici loop making the same requests in the same run
// (bench/batch-undici-baseline.mjs; keep-alive in both), runs interleaved; then peak RSS for a
// 100-line and a 100 000-line input. Prints numbers; asserts nothing.
// Run: npm run build && node bench/batch.mjs   (RUNS=5, PROMPTS=2000, BIG=100000, MODEL=echo)
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { batchBenchUser, bin, fmt, measure, median, promptsFile, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 3);
const prompts = Number(process.env.PROMPTS ?? 2000);
const big = Number(process.env.BIG ?? 100_000);
const model = process.env.MODEL ?? 'echo';
const concurrency = 16;
const node = process.execPath;
const { dir, env } = batchBenchUser('gatechat-bench-batch-');

const inputFile = (name, n) => promptsFile(dir, name, n);

const gateway = await startDevGateway();
const client = process.env.BENCH_BIN ?? bin;
const gatechat = (input) => [node, client, 'batch', input, '--base-url', gateway.base, '-m', model, '--concurrency', String(concurrency)];
const baseline = (input) => [node, new URL('./batch-undici-baseline.mjs', import.meta.url).pathname, gateway.base, model, input, String(concurrency)];

async function run(argv) {
  const result = await measure(argv, { env });
  if (result.code !== 0) throw new Error(`${argv.slice(1, 3).join(' ')} exited ${result.code}`);
  return result;
}

try {
  const input = inputFile('prompts.jsonl', prompts);
  // Warm-up (file cache, the gateway's JIT), not counted.
  await run(gatechat(input));
  await run(baseline(input));
  const ours = [];
  const theirs = [];
  for (let i = 0; i < runs; i++) {
    theirs.push(await run(baseline(input)));
    ours.push(await run(gatechat(input)));
  }
  const rate = (results) => prompts / (median(results.map((r) => r.wallMs)) / 1000);
  const oursRate = rate(ours);
  const theirsRate = rate(theirs);

  // BIG=0 skips the memory part (the 100 000-line run takes minutes on a busy machine).
  const small = big > 0 ? await run(gatechat(inputFile('small.jsonl', 100))) : null;
  const large = big > 0 ? await run(gatechat(inputFile('large.jsonl', big))) : null;

  console.log(`\ngatechat batch benchmark — ${prompts} prompts (model ${model}), --concurrency ${concurrency}, median of ${runs} interleaved runs, Node ${process.version}\n`);
  // Client CPU beside wall time: on a shared 2-core machine the gateway's CPU competes with the
  // client's, so CPU per prompt says more about gatechat's own cost than wall time alone.
  const row = (name, results, rateValue) =>
    console.log(
      `| ${name} | ${fmt(median(results.map((r) => r.wallMs)) / 1000, 2)} | ${fmt(rateValue, 0)} | ${fmt((median(results.map((r) => r.cpuS)) * 1e6) / prompts, 0)} | ${fmt(Math.max(...results.map((r) => r.rssMiB)))} |`,
    );
  console.log('| run | median wall s | prompts/s | client CPU µs/prompt | peak RSS MiB |');
  console.log('|---|---:|---:|---:|---:|');
  row(`plain undici loop (keep-alive, ${concurrency} workers)`, theirs, theirsRate);
  row('gatechat batch', ours, oursRate);
  console.log(`\nthroughput: gatechat / undici loop = ${fmt(oursRate / theirsRate, 2)}× (target ≥ 1.0×, SPEC §10)`);
  if (small && large) console.log(`peak RSS: 100 lines ${fmt(small.rssMiB)} MiB (${fmt(small.wallMs / 1000, 2)} s), ${big} lines ${fmt(large.rssMiB)} MiB (${fmt(large.wallMs / 1000, 1)} s, ${fmt(big / (large.wallMs / 1000), 0)}/s) → ${fmt(large.rssMiB / small.rssMiB, 2)}× (target ≤ 1.2×)`);
} finally {
  gateway.stop();
  rmSync(dir, { recursive: true, force: true });
}
