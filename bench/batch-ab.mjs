// Local batch, builds A/B (SPEC §10 batch row): the plain undici loop (bench/batch-undici-baseline.mjs)
// and each gatechat build given, interleaved round by round against one dev gateway (its own
// process), so load drifts on a shared machine hit all alike. Prints median wall, client CPU per
// prompt and each build's throughput over the loop's. No RSS part: bench/batch.mjs has it.
// Run: npm run build && node bench/batch-ab.mjs <old>/bin/gatechat.js bin/gatechat.js   (RUNS=5, PROMPTS=2000)
import { rmSync } from 'node:fs';
import { batchBenchUser, fmt, measure, median, promptsFile, startDevGateway } from './lib.mjs';

const bins = process.argv.slice(2);
if (bins.length === 0) throw new Error('usage: node bench/batch-ab.mjs <bin A> [<bin B> …]');
const runs = Number(process.env.RUNS ?? 5);
const prompts = Number(process.env.PROMPTS ?? 2000);
const concurrency = 16;
const { dir, env } = batchBenchUser('gatechat-bench-batch-ab-');
const input = promptsFile(dir, 'prompts.jsonl', prompts);
const gateway = await startDevGateway();
const commands = [
  ['plain undici loop', [process.execPath, new URL('./batch-undici-baseline.mjs', import.meta.url).pathname, gateway.base, 'echo', input, String(concurrency)]],
  ...bins.map((bin) => [bin, [process.execPath, bin, 'batch', input, '--base-url', gateway.base, '-m', 'echo', '--concurrency', String(concurrency)]]),
];
const results = commands.map(() => []);
try {
  // Warm-up (file cache, code caches, the gateway's JIT), not counted.
  for (const [, argv] of commands) await measure(argv, { env });
  for (let i = 0; i < runs; i++) {
    for (const [j, [name, argv]] of commands.entries()) {
      const r = await measure(argv, { env });
      if (r.code !== 0) throw new Error(`${name} exited ${r.code}`);
      results[j].push(r);
    }
  }
} finally {
  gateway.stop();
  rmSync(dir, { recursive: true, force: true });
}
const wall = (list) => median(list.map((r) => r.wallMs));
console.log(`\n${prompts} prompts (echo), --concurrency ${concurrency}, median of ${runs} interleaved rounds, Node ${process.version}\n`);
console.log('| run | median wall s | client CPU µs/prompt | × the loop\'s throughput |');
console.log('|---|---:|---:|---:|');
for (const [j, [name]] of commands.entries()) {
  console.log(`| ${name} | ${fmt(wall(results[j]) / 1000, 2)} | ${fmt((median(results[j].map((r) => r.cpuS)) * 1e6) / prompts, 0)} | ${fmt(wall(results[0]) / wall(results[j]), 2)} |`);
}
