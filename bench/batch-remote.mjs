// Remote batch memory (SPEC §10, §19): `gatechat batch --remote` with a 100-line and a 100 000-line
// input against the dev gateway (its own process), on each interface: upload (streamed), waiting and
// writing the results, peak RSS of each run and the ratio. Prints numbers; asserts nothing.
// Every run writes a fresh --output: a rerun on the same output would resume, find every line
// written, and exit without submitting anything (that is what the 100-line figure measured before).
// BENCH_BIN takes one build or several, comma-separated (A/B): their runs interleave, ROUNDS times.
// Run: npm run build && node bench/batch-remote.mjs   (BIG=100000, APIS=chat,messages, MODEL=echo, ROUNDS=1)
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { batchBenchUser, bin, fmt, measure, median, promptsFile, startDevGateway } from './lib.mjs';

const big = Number(process.env.BIG ?? 100_000);
const apis = (process.env.APIS ?? 'chat,messages').split(',');
const model = process.env.MODEL ?? 'echo';
const rounds = Number(process.env.ROUNDS ?? 1);
const { dir, env } = batchBenchUser('gatechat-bench-remote-');

const inputFile = (name, n) => promptsFile(dir, name, n);

const gateway = await startDevGateway();
const clients = (process.env.BENCH_BIN ?? bin).split(',');

async function run(client, api, input, n) {
  const output = join(dir, `out-${api}-${n}.jsonl`);
  rmSync(output, { force: true });
  rmSync(`${output}.batches`, { force: true });
  const result = await measure([process.execPath, client, 'batch', input, '--remote', '--output', output, '--api', api, '--base-url', gateway.base, '-m', model], { env });
  if (result.code !== 0) throw new Error(`${client} --api ${api}, ${n} lines: exited ${result.code}`);
  return result;
}

try {
  const small = inputFile('small.jsonl', 100);
  const large = inputFile('large.jsonl', big);
  console.log(`\ngatechat batch --remote memory — 100 and ${big} lines (model ${model}), ${rounds} round${rounds === 1 ? '' : 's'}, Node ${process.version}\n`);
  console.log('| build | interface | 100 lines: peak RSS MiB, wall s | ' + `${big} lines: peak RSS MiB, wall s | ratio (target ≤ 1.2×) |`);
  console.log('|---|---|---:|---:|---:|');
  for (const api of apis) {
    for (const client of clients) await run(client, api, small, 100); // warm-up: file cache, the gateway's JIT
    const results = clients.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, client] of clients.entries()) {
        const a = await run(client, api, small, 100);
        const b = await run(client, api, large, big);
        results[i].push({ a, b, ratio: b.rssMiB / a.rssMiB });
        console.log(`| ${client} | ${api} | ${fmt(a.rssMiB)}, ${fmt(a.wallMs / 1000, 2)} | ${fmt(b.rssMiB)}, ${fmt(b.wallMs / 1000, 1)} | ${fmt(b.rssMiB / a.rssMiB, 2)}× |`);
      }
    }
    if (rounds > 1) {
      for (const [i, client] of clients.entries()) {
        const ratios = results[i].map((r) => r.ratio);
        console.log(`| ${client} | ${api} | median ${fmt(median(results[i].map((r) => r.a.rssMiB)))} | median ${fmt(median(results[i].map((r) => r.b.rssMiB)))} | median ${fmt(median(ratios), 2)}× (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}) |`);
      }
    }
  }
} finally {
  gateway.stop();
  rmSync(dir, { recursive: true, force: true });
}
