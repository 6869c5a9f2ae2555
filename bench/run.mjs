// One-shot benchmarks (SPEC §10), each beside baselines measured in the same run on this machine:
// `node -e 0`, `curl -N` against the same gateway, a minimal script using the openai package, and the floor:
// a minimal node:http client making the same request (node-http-floor.cjs).
// Prints numbers; asserts nothing. Run: npm run bench  (RUNS=15 npm run bench for more samples)
import { bin, fmt, series, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 9);
const node = process.execPath;
const gateway = await startDevGateway();
const body = (model) => JSON.stringify({ model, messages: [{ role: 'user', content: 'bench' }], stream: true, stream_options: { include_usage: true } });
const env = { ...process.env, GATECHAT_CONFIG_DIR: '/nonexistent-gatechat-bench', GATECHAT_DATA_DIR: '/tmp/gatechat-bench-data' };
const gatechat = (model) => [node, bin, '--base-url', gateway.base, '-m', model, '--no-save', 'bench'];

try {
  const rows = [];
  const add = async (name, argv, options) => {
    const r = await series(argv, runs, options);
    rows.push({ name, ...r });
    return r;
  };
  const nodeBaseline = await add('node -e 0', [node, '-e', '0']);
  const version = await add('gatechat --version', [node, bin, '--version'], { env });
  const curl = await add('curl -N, lorem-2000 stream', ['curl', '-sN', '-H', 'Content-Type: application/json', '-d', body('lorem-2000'), `${gateway.base}/chat/completions`]);
  const openai = await add('openai package script, lorem-2000', [node, new URL('./openai-baseline.mjs', import.meta.url).pathname, gateway.base, 'lorem-2000', 'bench']);
  const floor = await add('node:http floor, lorem-2000', [node, new URL('./node-http-floor.cjs', import.meta.url).pathname, gateway.base, 'lorem-2000', 'bench']);
  const oneShot = await add('gatechat piped, lorem-2000', gatechat('lorem-2000'), { env });
  const tiny = await add('gatechat piped, lorem-1', gatechat('lorem-1'), { env });
  const big = await add('gatechat piped, lorem-100000', gatechat('lorem-100000'), { env });

  console.log(`\ngatechat one-shot benchmark — median of ${runs} runs, peak RSS = max over runs, Node ${process.version}\n`);
  console.log('| run | median wall ms | × node -e 0 | peak RSS MiB | CPU s |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${fmt(r.wallMs)} | ${fmt(r.wallMs / nodeBaseline.wallMs, 2)} | ${fmt(r.rssMiB)} | ${fmt(r.cpuS, 2)} |`);

  const check = (label, value, target, ok) => console.log(`| ${label} | ${value} | ${target} | ${ok ? 'met' : 'NOT met'} |`);
  console.log('\n| SPEC §10 figure (this Node; bench/nodes.mjs has every line) | measured | target | |');
  console.log('|---|---:|---:|---|');
  // Own cost = gatechat's median wall minus node -e 0's, same Node, same run (SPEC §10).
  const ownMs = oneShot.wallMs - nodeBaseline.wallMs;
  check(`one-shot 2000-token stream: own cost (${fmt(oneShot.wallMs / openai.wallMs, 2)}× the openai script's wall)`, `${fmt(ownMs)} ms`, '≤ 60 ms', ownMs <= 60);
  const overFloor = oneShot.wallMs / floor.wallMs;
  check('one-shot 2000-token stream: wall against the node:http floor', `${fmt(overFloor, 2)}×`, '≤ 1.15×', overFloor <= 1.15);
  const extraRss = oneShot.rssMiB - nodeBaseline.rssMiB;
  check('one-shot peak RSS over node -e 0', `+${fmt(extraRss)} MiB`, '≤ +20 MiB', extraRss <= 20);
  check('gatechat --version vs node -e 0', `${fmt(version.wallMs / nodeBaseline.wallMs, 2)}×`, '≤ 1.3×', version.wallMs / nodeBaseline.wallMs <= 1.3);
  const extraCpu = big.cpuS - tiny.cpuS;
  check('100k-token stream, CPU beyond start-up', `${fmt(extraCpu, 2)} s`, '≤ 0.6 s', extraCpu <= 0.6);
  console.log(`\ncurl -N for the same stream: ${fmt(curl.wallMs)} ms (the floor: no process start-up of Node).`);
} finally {
  gateway.stop();
}
