// MCP servers start in parallel (SPEC §15, issue 16 point 10): `gatechat tools` with three stdio servers
// beside each server alone, interleaved runs, median wall each. Target: the three together take at most
// 1.2 × the slowest alone. `node -e 0` is measured in the same run, and so is the least client there is
// (bench/mcp-floor.cjs: raw JSON-RPC lines, no SDK) with the same four cases: its ratio is what the servers
// alone make of starting together on this machine's cores. Prints numbers, asserts nothing.
// Run: npm run build && node bench/tools-start.mjs   (RUNS=9)
// A/B: BENCH_BINS=/old/bin/gatechat.js,bin/gatechat.js measures each build's four cases in every round,
// interleaved, so load drifts hit the builds alike.
// gatechat's own CPU (its process only, without the servers': process.cpuUsage() at exit, written by a
// --require preload given through NODE_OPTIONS, which launch.ts does not pass on to the servers).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, fmt, measure, median, repoRoot } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 9);
const bins = process.env.BENCH_BINS ? process.env.BENCH_BINS.split(',') : [bin];
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'gatechat-bench-tools-'));
const env = { ...process.env, GATECHAT_CONFIG_DIR: join(dir, 'config'), GATECHAT_DATA_DIR: join(dir, 'data') };
const ownCpuLog = join(dir, 'own-cpu.log');
const preload = join(dir, 'own-cpu.cjs');
writeFileSync(preload, `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').appendFileSync(${JSON.stringify(ownCpuLog)}, ((u.user + u.system) / 1000).toFixed(2) + '\\n'); });\n`);
const gatechatEnv = { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require=${preload}`.trim() };
const servers = {
  filesystem: `fs=${node} ${join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')} ${dir}`,
  everything: `ev=${node} ${join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')}`,
  fault: `fault=${node} ${join(repoRoot, 'test/fixtures/mcp/fault-server.mjs')}`,
};
const casesOf = (gatechat) => [
  ...Object.entries(servers).map(([name, spec]) => [`${name} alone`, [node, gatechat, 'tools', '--mcp', spec]]),
  ['all three', [node, gatechat, 'tools', ...Object.values(servers).flatMap((spec) => ['--mcp', spec])]],
];
const floorScript = new URL('./mcp-floor.cjs', import.meta.url).pathname;
/** The floor client takes each server as one command line (no `name=`). */
const floorCases = [
  ...Object.entries(servers).map(([name, spec]) => [`${name} alone`, [node, floorScript, spec.slice(spec.indexOf('=') + 1)]]),
  ['all three', [node, floorScript, ...Object.values(servers).map((spec) => spec.slice(spec.indexOf('=') + 1))]],
];
const cases = [['node -e 0', [node, '-e', '0']], ...floorCases, ...bins.flatMap(casesOf)];
const walls = cases.map(() => []);
const cpus = cases.map(() => []); // user+sys of the process and its waited-for children (GNU time), ms
const ownCpus = cases.map(() => []); // gatechat's process alone, ms
const isGatechat = (j) => j >= 5;
try {
  for (const [j, [, argv]] of cases.entries()) await measure(argv, { env: isGatechat(j) ? gatechatEnv : env }); // warm-up: caches filled once
  for (let i = 0; i < runs; i++) {
    for (const [j, [, argv]] of cases.entries()) {
      writeFileSync(ownCpuLog, '');
      const r = await measure(argv, { env: isGatechat(j) ? gatechatEnv : env });
      if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}`);
      walls[j].push(r.wallMs);
      cpus[j].push(r.cpuS * 1000);
      if (isGatechat(j)) ownCpus[j].push(readFileSync(ownCpuLog, 'utf8').trim().split('\n').reduce((sum, ms) => sum + Number(ms), 0));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const medians = walls.map(median);
const cpuMedians = cpus.map(median);
const ownCpuMedians = ownCpus.map((values) => (values.length ? median(values) : NaN));
console.log(`gatechat tools: MCP servers starting in parallel — median of ${runs} interleaved runs, Node ${process.version}\n`);
console.log(`node -e 0: ${fmt(medians[0])} ms wall, ${fmt(cpuMedians[0])} ms CPU`);
const cores = Number(process.env.CORES ?? 2);
const floorWall = medians.slice(1, 5);
const floorRatio = floorWall[3] / Math.max(...floorWall.slice(0, 3));
console.log('\nThe least client (bench/mcp-floor.cjs: spawn, raw JSON-RPC, close, wait for exit):');
console.log('\n| run | median wall ms | median CPU ms (user+sys) |\n|---|---:|---:|');
floorCases.forEach(([name], j) => console.log(`| ${name} | ${fmt(floorWall[j])} | ${fmt(cpuMedians[1 + j])} |`));
console.log(`\nleast client: three servers / slowest alone = ${floorRatio.toFixed(2)}× — the servers' own contention on ${cores} cores`);
bins.forEach((gatechat, b) => {
  const first = 5 + b * 4; // this build's four cases
  const [wall, cpu, own] = [medians.slice(first, first + 4), cpuMedians.slice(first, first + 4), ownCpuMedians.slice(first, first + 4)];
  if (bins.length > 1) console.log(`\n### ${gatechat}`);
  console.log('\n| run | median wall ms | median CPU ms (user+sys) | gatechat\'s own CPU ms |\n|---|---:|---:|---:|');
  casesOf(gatechat).forEach(([name], j) => console.log(`| ${name} | ${fmt(wall[j])} | ${fmt(cpu[j])} | ${fmt(own[j])} |`));
  const slowest = Math.max(...wall.slice(0, 3));
  const aloneCpuSum = cpu.slice(0, 3).reduce((a, c) => a + c, 0);
  // On 2 cores the three start-ups cannot take less than half the CPU they need together, nor less than the slowest alone.
  const floor = Math.max(slowest, cpu[3] / cores);
  console.log(`\nCPU of the three runs alone, summed: ${fmt(aloneCpuSum)} ms (each includes gatechat's own start-up); CPU of all three together: ${fmt(cpu[3])} ms`);
  console.log(`floor on ${cores} cores = max(slowest alone wall, CPU together ÷ ${cores}) = ${fmt(floor)} ms`);
  console.log(`three servers / slowest alone = ${(wall[3] / slowest).toFixed(2)}× (target ≤ 1.2×)`);
  console.log(`three servers / floor = ${(wall[3] / floor).toFixed(2)}× (what gatechat adds beyond the CPU limit)`);
  console.log(`three servers: gatechat ${fmt(wall[3])} ms, least client ${fmt(floorWall[3])} ms → ${(wall[3] / floorWall[3]).toFixed(2)}× (gatechat's own share of the three-server wait)`);
});
