// MCP servers start in parallel (SPEC §15, issue 16 point 10): `gatechat tools` with three stdio servers
// beside each server alone, interleaved runs, median wall each. Target: the three together take at most
// 1.2 × the slowest alone. `node -e 0` is measured in the same run as the floor. Prints numbers, asserts nothing.
// Run: npm run build && node bench/tools-start.mjs   (RUNS=9)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, fmt, measure, median, repoRoot } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 9);
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'gatechat-bench-tools-'));
const env = { ...process.env, GATECHAT_CONFIG_DIR: join(dir, 'config'), GATECHAT_DATA_DIR: join(dir, 'data') };
const servers = {
  filesystem: `fs=${node} ${join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')} ${dir}`,
  everything: `ev=${node} ${join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')}`,
  fault: `fault=${node} ${join(repoRoot, 'test/fixtures/mcp/fault-server.mjs')}`,
};
const cases = [
  ['node -e 0', [node, '-e', '0']],
  ...Object.entries(servers).map(([name, spec]) => [`${name} alone`, [node, bin, 'tools', '--mcp', spec]]),
  ['all three', [node, bin, 'tools', ...Object.values(servers).flatMap((spec) => ['--mcp', spec])]],
];
const walls = cases.map(() => []);
const cpus = cases.map(() => []); // user+sys of the process and its waited-for children (GNU time), ms
try {
  for (const [, argv] of cases) await measure(argv, { env }); // warm-up: caches filled once
  for (let i = 0; i < runs; i++) {
    for (const [j, [, argv]] of cases.entries()) {
      const r = await measure(argv, { env });
      if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}`);
      walls[j].push(r.wallMs);
      cpus[j].push(r.cpuS * 1000);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const medians = walls.map(median);
console.log(`gatechat tools: MCP servers starting in parallel — median of ${runs} interleaved runs, Node ${process.version}\n`);
const cpuMedians = cpus.map(median);
console.log('| run | median wall ms | median CPU ms (user+sys) |\n|---|---:|---:|');
cases.forEach(([name], j) => console.log(`| ${name} | ${fmt(medians[j])} | ${fmt(cpuMedians[j])} |`));
const slowest = Math.max(...medians.slice(1, -1));
const aloneCpuSum = cpuMedians.slice(1, -1).reduce((a, b) => a + b, 0);
// On 2 cores the three start-ups cannot take less than half the CPU they need together, nor less than the slowest alone.
const cores = Number(process.env.CORES ?? 2);
const floor = Math.max(slowest, cpuMedians.at(-1) / cores);
console.log(`\nCPU of the three runs alone, summed: ${fmt(aloneCpuSum)} ms (each includes gatechat's own start-up); CPU of all three together: ${fmt(cpuMedians.at(-1))} ms`);
console.log(`floor on ${cores} cores = max(slowest alone wall, CPU together ÷ ${cores}) = ${fmt(floor)} ms`);
console.log(`three servers / slowest alone = ${(medians.at(-1) / slowest).toFixed(2)}× (target ≤ 1.2×)`);
console.log(`three servers / floor = ${(medians.at(-1) / floor).toFixed(2)}× (what gatechat adds beyond the CPU limit)`);
