// What gatechat's code cache (bin/code-cache.js) buys: the piped 2000-token one-shot's own cost on a first
// run (an empty cache directory each time, so the run compiles everything and writes the cache) and on
// later runs (the cache written by the warm-up), alternating with `node -e 0` on the same Node.
// Run: node bench/code-cache.mjs   (RUNS=9; NODE_BIN=/path/to/node for another Node line)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { bin, fmt, measure, median, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 9);
const node = process.env.NODE_BIN ?? process.execPath;
const gateway = await startDevGateway();
const scratch = mkdtempSync(join(tmpdir(), 'gatechat-code-cache-bench-'));
const env = (cacheDir) => ({ ...process.env, GATECHAT_CONFIG_DIR: '/nonexistent-gatechat-bench', GATECHAT_DATA_DIR: '/tmp/gatechat-bench-data', GATECHAT_CACHE_DIR: cacheDir });
const oneShot = [node, bin, '--base-url', gateway.base, '-m', 'lorem-2000', '--no-save', 'bench'];
const base = [];
const first = [];
const later = [];
try {
  await measure(oneShot, { env: env(join(scratch, 'warm')) });
  for (let i = 0; i < runs; i++) {
    base.push((await measure([node, '-e', '0'])).wallMs);
    first.push((await measure(oneShot, { env: env(join(scratch, `cold-${i}`)) })).wallMs);
    later.push((await measure(oneShot, { env: env(join(scratch, 'warm')) })).wallMs);
  }
} finally {
  gateway.stop();
  rmSync(scratch, { recursive: true, force: true });
}
const own = (list) => fmt(median(list) - median(base));
console.log(`\n${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}: own cost of a piped 2000-token one-shot, median of ${runs}`);
console.log(`  first run (writes the cache)   ${own(first)} ms`);
console.log(`  later runs (from the cache)    ${own(later)} ms`);
