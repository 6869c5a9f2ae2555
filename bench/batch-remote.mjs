// Remote batch memory (SPEC §10, §19): `gatechat batch --remote` with a 100-line and a 100 000-line
// input against the dev gateway (its own process), on each interface: upload (streamed), waiting and
// writing the results, peak RSS of each run and the ratio. Prints numbers; asserts nothing.
// Run: npm run build && node bench/batch-remote.mjs   (BIG=100000, APIS=chat,messages, MODEL=echo)
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { batchBenchUser, bin, fmt, measure, promptsFile, startDevGateway } from './lib.mjs';

const big = Number(process.env.BIG ?? 100_000);
const apis = (process.env.APIS ?? 'chat,messages').split(',');
const model = process.env.MODEL ?? 'echo';
const { dir, env } = batchBenchUser('gatechat-bench-remote-');

const inputFile = (name, n) => promptsFile(dir, name, n);

const gateway = await startDevGateway();
const client = process.env.BENCH_BIN ?? bin;

async function run(api, input, n) {
  const output = join(dir, `out-${api}-${n}.jsonl`);
  const result = await measure([process.execPath, client, 'batch', input, '--remote', '--output', output, '--api', api, '--base-url', gateway.base, '-m', model], { env });
  if (result.code !== 0) throw new Error(`--api ${api}, ${n} lines: exited ${result.code}`);
  return result;
}

try {
  const small = inputFile('small.jsonl', 100);
  const large = inputFile('large.jsonl', big);
  console.log(`\ngatechat batch --remote memory — 100 and ${big} lines (model ${model}), Node ${process.version}\n`);
  console.log('| interface | 100 lines: peak RSS MiB, wall s | ' + `${big} lines: peak RSS MiB, wall s | ratio (target ≤ 1.2×) |`);
  console.log('|---|---:|---:|---:|');
  for (const api of apis) {
    await run(api, small, 100); // warm-up: file cache, the gateway's JIT
    const a = await run(api, small, 100);
    const b = await run(api, large, big);
    console.log(`| ${api} | ${fmt(a.rssMiB)}, ${fmt(a.wallMs / 1000, 2)} | ${fmt(b.rssMiB)}, ${fmt(b.wallMs / 1000, 1)} | ${fmt(b.rssMiB / a.rssMiB, 2)}× |`);
  }
} finally {
  gateway.stop();
  rmSync(dir, { recursive: true, force: true });
}
