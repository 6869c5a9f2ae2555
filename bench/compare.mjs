// Compare mode (SPEC §10/§11): one prompt to 4 models at once against the dev gateway, beside each
// model alone in the same run. Figures: compare wall ÷ the slowest single model's wall (target ≤ 1.3)
// and compare peak RSS ÷ one model's peak RSS (target ≤ 1.5). Prints numbers; asserts nothing.
// Run: npm run build && node bench/compare.mjs   (RUNS=7 for more samples; medians for wall, max for RSS)
import { bin, fmt, series, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 5);
const node = process.execPath;
// Different speeds, one of them a fast token stream: slow-N spaces its words N ms apart.
const MODELS = (process.env.MODELS ?? 'slow-4,slow-5,slow-6,lorem-300').split(',');
const MAX_TOKENS = process.env.MAX_TOKENS ?? '300';
const env = { ...process.env, GATECHAT_CONFIG_DIR: '/nonexistent-gatechat-bench' };
for (const key of Object.keys(env)) if (key.startsWith('GATECHAT_') && key !== 'GATECHAT_CONFIG_DIR') delete env[key];

const gateway = await startDevGateway();
const gatechat = (models) => [node, bin, '--base-url', gateway.base, ...models.flatMap((m) => ['-m', m]), '--max-tokens', MAX_TOKENS, '--no-save', 'compare these'];

try {
  // Warm the file cache and the compile cache once, so the first measured run is not the odd one out.
  await series(gatechat(MODELS), 1, { env });
  const singles = [];
  for (const model of MODELS) singles.push({ model, ...(await series(gatechat([model]), runs, { env })) });
  const compare = await series(gatechat(MODELS), runs, { env });
  const slowest = singles.reduce((a, b) => (b.wallMs > a.wallMs ? b : a));
  const oneModelRss = Math.max(...singles.map((s) => s.rssMiB));

  console.log(`compare, ${MODELS.length} models (${MODELS.join(', ')}), --max-tokens ${MAX_TOKENS}, piped, ${runs} runs, node ${process.version}`);
  console.log('');
  console.log('run                      wall ms (median)   peak RSS MiB (max)');
  for (const s of singles) console.log(`${`alone: ${s.model}`.padEnd(24)} ${fmt(s.wallMs, 0).padStart(16)}   ${fmt(s.rssMiB).padStart(18)}`);
  console.log(`${`compare: all ${MODELS.length}`.padEnd(24)} ${fmt(compare.wallMs, 0).padStart(16)}   ${fmt(compare.rssMiB).padStart(18)}`);
  console.log('');
  console.log(`wall: compare ÷ slowest alone (${slowest.model}) = ${fmt(compare.wallMs / slowest.wallMs, 2)}   (target ≤ 1.3)`);
  console.log(`RSS:  compare ÷ one model (max of the singles)   = ${fmt(compare.rssMiB / oneModelRss, 2)}   (target ≤ 1.5)`);
} finally {
  gateway.stop();
}
