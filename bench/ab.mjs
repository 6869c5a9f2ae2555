// Two builds of gatechat, A/B, in one run: the piped 2000-token one-shot of each, alternating with
// `node -e 0` on the same Node, so machine load drifts hit all alike. Prints each build's own cost (median
// wall minus node's), CPU over node's and peak RSS over node's. This is how each start-up change in
// docs/benchmarks.md was measured: build the old commit elsewhere (a git worktree) and compare.
// Run: node bench/ab.mjs /path/to/old/bin/gatechat.js bin/gatechat.js   (RUNS=21, MODEL=echo, NODE_BIN=…)
import { execFileSync } from 'node:child_process';
import { fmt, measure, median, startDevGateway } from './lib.mjs';

const bins = process.argv.slice(2);
if (bins.length === 0) throw new Error('usage: node bench/ab.mjs <bin A> [<bin B> …]');
const runs = Number(process.env.RUNS ?? 15);
const node = process.env.NODE_BIN ?? process.execPath;
const model = process.env.MODEL ?? 'lorem-2000';
const gateway = await startDevGateway();
const env = { ...process.env, GATECHAT_CONFIG_DIR: '/nonexistent-gatechat-bench', GATECHAT_DATA_DIR: '/tmp/gatechat-bench-data' };
const commands = [[node, '-e', '0'], ...bins.map((bin) => [node, bin, '--base-url', gateway.base, '-m', model, '--no-save', 'bench'])];
const results = commands.map(() => []);
try {
  // One warm-up each: caches (Node's compile cache, gatechat's code cache) are filled on a first run.
  for (const argv of commands) await measure(argv, { env });
  for (let i = 0; i < runs; i++) {
    for (const [j, argv] of commands.entries()) {
      const r = await measure(argv, { env });
      if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}`);
      results[j].push(r);
    }
  }
} finally {
  gateway.stop();
}
const wall = (list) => median(list.map((r) => r.wallMs));
const cpu = (list) => median(list.map((r) => r.cpuS * 1000));
const peak = (list) => Math.max(...list.map((r) => r.rssMiB));
const [base, ...builds] = results;
console.log(`\n${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}, ${model}, median of ${runs} alternating runs; node -e 0: ${fmt(wall(base))} ms, ${fmt(peak(base))} MiB\n`);
console.log('| build | own cost ms | own CPU ms | peak RSS over node MiB |');
console.log('|---|---:|---:|---:|');
for (const [j, list] of builds.entries()) {
  console.log(`| ${bins[j]} | ${fmt(wall(list) - wall(base))} | ${fmt(cpu(list) - cpu(base), 0)} | +${fmt(peak(list) - peak(base))} |`);
}
