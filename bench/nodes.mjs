// Start-up on every Node line (SPEC §10): for Node 20, 22 and 24, gatechat's own cost — its median
// wall for the piped 2000-token one-shot minus `node -e 0`'s median wall on the same Node in the same
// run — its peak RSS beside node's own, its wall as a share of a minimal openai-package script's, and its
// wall against the floor: a minimal node:http client making the same request (node-http-floor.cjs).
// Runs alternate between the commands so machine load drifts hit all alike. Node 22/24 come from
// `npx -y -p node@N` (fetched once into npm's cache).
// Run: node bench/nodes.mjs   (RUNS=21 for more samples; NODES=20,22 for fewer lines; BENCH_BIN to compare builds)
import { execFileSync } from 'node:child_process';
import { bin, fmt, measure, median, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 11);
/** BENCH_BIN=/path/to/other/bin/gatechat.js measures another build (e.g. an older checkout) the same way. */
const target = process.env.BENCH_BIN ?? bin;
const lines = (process.env.NODES ?? '20,22,24').split(',').map((s) => s.trim());

/** The node binary of one major line: this one if it matches, else npx's node@N package. */
function nodeBinary(major) {
  if (process.versions.node.split('.')[0] === major) return process.execPath;
  return execFileSync('npx', ['-y', '-p', `node@${major}`, '-c', 'node -p process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

const gateway = await startDevGateway();
const env = { ...process.env, GATECHAT_CONFIG_DIR: '/nonexistent-gatechat-bench', GATECHAT_DATA_DIR: '/tmp/gatechat-bench-data' };
const rows = [];
try {
  for (const major of lines) {
    const node = nodeBinary(major);
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    const base = [];
    const chat = [];
    const openai = [];
    const floor = [];
    const openaiScript = [node, new URL('./openai-baseline.mjs', import.meta.url).pathname, gateway.base, 'lorem-2000', 'bench'];
    const floorScript = [node, new URL('./node-http-floor.cjs', import.meta.url).pathname, gateway.base, 'lorem-2000', 'bench'];
    // One warm-up each: the compile cache (Node 22.1+) is filled on a first run, as after an install.
    await measure([node, '-e', '0']);
    await measure([node, target, '--base-url', gateway.base, '-m', 'lorem-2000', '--no-save', 'bench'], { env });
    for (let i = 0; i < runs; i++) {
      base.push(await measure([node, '-e', '0']));
      const r = await measure([node, target, '--base-url', gateway.base, '-m', 'lorem-2000', '--no-save', 'bench'], { env });
      if (r.code !== 0) throw new Error(`gatechat exited ${r.code} on ${version}`);
      chat.push(r);
      openai.push(await measure(openaiScript));
      const f = await measure(floorScript);
      if (f.code !== 0) throw new Error(`the node:http floor exited ${f.code} on ${version}`);
      floor.push(f);
    }
    const wall = (list) => median(list.map((r) => r.wallMs));
    const rss = (list) => median(list.map((r) => r.rssMiB));
    const peak = (list) => Math.max(...list.map((r) => r.rssMiB));
    const cpu = (list) => median(list.map((r) => r.cpuS * 1000));
    rows.push({ version, nodeMs: wall(base), chatMs: wall(chat), openaiMs: wall(openai), floorMs: wall(floor), nodeCpu: cpu(base), chatCpu: cpu(chat), chatRss: rss(chat), chatPeak: peak(chat), nodePeak: peak(base) });
  }
} finally {
  gateway.stop();
}

console.log(`\nStart-up per Node line — piped one-shot, lorem-2000 stream, median of ${runs} alternating runs\n`);
// CPU (user+sys, 10 ms resolution) beside wall: on a loaded machine it is the steadier of the two.
console.log('| Node | node -e 0 ms | gatechat ms | own cost ms (≤ 60) | node:http floor ms | × floor (≤ 1.15) | × openai script | own CPU ms | node -e 0 RSS MiB | gatechat RSS MiB (median / peak) | RSS over node (≤ 20 MiB) |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const own = r.chatMs - r.nodeMs;
  const extra = r.chatPeak - r.nodePeak;
  const overFloor = r.chatMs / r.floorMs;
  console.log(
    `| ${r.version} | ${fmt(r.nodeMs)} | ${fmt(r.chatMs)} | ${fmt(own)} ${own <= 60 ? 'met' : 'NOT met'} | ${fmt(r.floorMs)} | ${fmt(overFloor, 2)} ${overFloor <= 1.15 ? 'met' : 'NOT met'} | ${fmt(r.chatMs / r.openaiMs, 2)} | ${fmt(r.chatCpu - r.nodeCpu, 0)} | ${fmt(r.nodePeak)} | ${fmt(r.chatRss)} / ${fmt(r.chatPeak)} | +${fmt(extra)} ${extra <= 20 ? 'met' : 'NOT met'} |`,
  );
}
