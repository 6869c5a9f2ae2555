// How MCP servers starting together scale with the cores they get (issue 16 point 10: three servers in
// ≤ 1.2 × the slowest alone). Each server's start-up is a Node process loading its SDK, so it is mostly
// CPU: with fewer cores than servers they queue for the CPU whatever the client does. This runs the least
// client there is (bench/mcp-floor.cjs) and `gatechat tools` on one core (taskset -c 0) and on every core,
// with one, two and three servers, interleaved, and prints each group's ratio to its slowest server alone.
// "servers ≤ cores" rows are what a machine with enough cores would show for three. Asserts nothing.
// Run: npm run build && node bench/tools-start-cores.mjs   (RUNS=5; needs taskset from util-linux)
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, fmt, measure, median, repoRoot } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 5);
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'gatechat-bench-cores-'));
const env = { ...process.env, GATECHAT_CONFIG_DIR: join(dir, 'config'), GATECHAT_DATA_DIR: join(dir, 'data') };
const servers = {
  filesystem: `${node} ${join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')} ${dir}`,
  everything: `${node} ${join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')}`,
  fault: `${node} ${join(repoRoot, 'test/fixtures/mcp/fault-server.mjs')}`,
};
const groups = [['filesystem'], ['everything'], ['fault'], ['filesystem', 'everything'], ['filesystem', 'fault'], ['filesystem', 'everything', 'fault']];
const clients = {
  'least client': (names) => [node, new URL('./mcp-floor.cjs', import.meta.url).pathname, ...names.map((name) => servers[name])],
  gatechat: (names) => [node, bin, 'tools', ...names.flatMap((name) => ['--mcp', `${name}=${servers[name]}`])],
};
const all = availableParallelism();
const coreSets = [
  ['1 core', '0'],
  [`${all} cores`, `0-${all - 1}`],
];
const cases = coreSets.flatMap(([cores, list]) =>
  Object.entries(clients).flatMap(([client, argvOf]) => groups.map((names) => ({ cores, client, names, argv: ['taskset', '-c', list, ...argvOf(names)] }))),
);
const walls = cases.map(() => []);
try {
  for (const { argv } of cases) await measure(argv, { env }); // warm-up: file caches
  for (let i = 0; i < runs; i++) {
    for (const [j, { argv }] of cases.entries()) {
      const r = await measure(argv, { env });
      if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}`);
      walls[j].push(r.wallMs);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`MCP servers starting together against the cores they get — median wall of ${runs} interleaved runs, Node ${process.version}\n`);
console.log('| cores | client | servers | median wall ms | ÷ slowest alone |\n|---|---|---|---:|---:|');
const wallOf = (cores, client, names) => median(walls[cases.findIndex((c) => c.cores === cores && c.client === client && c.names.join() === names.join())]);
for (const { cores, client, names } of cases) {
  const wall = wallOf(cores, client, names);
  const slowest = Math.max(...names.map((name) => wallOf(cores, client, [name])));
  console.log(`| ${cores} | ${client} | ${names.join(' + ')} | ${fmt(wall, 0)} | ${names.length > 1 ? `${fmt(wall / slowest, 2)}×` : ''} |`);
}
