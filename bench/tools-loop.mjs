// gatechat's own cost per tool step (SPEC §15, issue 16 point 10): one prompt whose loop runs STEPS tool
// steps against a command tool (the dev gateway's `agent-N` keeps calling until N results came back),
// minus what is not gatechat's — its start-up and first request (a plain one-shot, measured alongside),
// the tool's own time (the same command spawned by this script) and the gateway's (the same follow-up
// request sent by this script). Target: ≤ 5 ms per step. Runs alternate, so load drifts hit all alike;
// on a shared machine the figures are noisy, the ratio between them less so.
// Run: npm run build && node bench/tools-loop.mjs   (RUNS=7, STEPS=20, API=chat|messages)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, fmt, measure, median, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 7);
const steps = Number(process.env.STEPS ?? 20);
const api = process.env.API ?? 'chat';
const dir = mkdtempSync(join(tmpdir(), 'gatechat-tools-bench-'));
const toolCommand = "cat > /dev/null; printf 'tick ok'";
const toolsFile = join(dir, 'tools.json');
writeFileSync(toolsFile, JSON.stringify([{ type: 'function', function: { name: 'tick', parameters: { type: 'object' } }, 'x-command': toolCommand }]));
const env = { ...process.env, GATECHAT_CONFIG_DIR: join(dir, 'config'), GATECHAT_DATA_DIR: join(dir, 'data') };
const gateway = await startDevGateway();
const common = [process.execPath, bin, '--base-url', gateway.base, '--api', api, '--no-save', '-q'];
const loop = [...common, '-m', `agent-${steps}`, '--tools', toolsFile, '--allow', 'tick', '--max-steps', String(steps + 1), 'call tick {}'];
const plain = [...common, '-m', 'echo', 'call tick {}'];

/** The tool alone, as gatechat starts it ($SHELL -c, arguments on stdin). */
function toolOnce() {
  const started = performance.now();
  const r = spawnSync(process.env.SHELL || '/bin/sh', ['-c', toolCommand], { input: '{}' });
  if (r.status !== 0) throw new Error('tool failed');
  return performance.now() - started;
}

/** One follow-up request of the loop, as the gateway sees it (a history with `steps` results). */
async function gatewayOnce() {
  const messages = [{ role: 'user', content: 'call tick {}' }];
  for (let i = 0; i < steps; i++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'tick', arguments: '{}' } }] });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: 'tick ok' });
  }
  const body = JSON.stringify({ model: 'agent', messages, tools: [{ type: 'function', function: { name: 'tick', parameters: { type: 'object' } } }], stream: true });
  const started = performance.now();
  const response = await fetch(`${gateway.base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.text();
  return performance.now() - started;
}

const walls = { loop: [], plain: [], tool: [], gateway: [] };
try {
  await measure(loop, { env });
  await measure(plain, { env });
  for (let i = 0; i < runs; i++) {
    const a = await measure(loop, { env });
    if (a.code !== 0) throw new Error(`the loop run exited ${a.code}`);
    walls.loop.push(a.wallMs);
    const b = await measure(plain, { env });
    if (b.code !== 0) throw new Error(`the plain run exited ${b.code}`);
    walls.plain.push(b.wallMs);
    walls.tool.push(median(Array.from({ length: 5 }, toolOnce)));
    const g = [];
    for (let j = 0; j < 5; j++) g.push(await gatewayOnce());
    walls.gateway.push(median(g));
  }
} finally {
  gateway.stop();
}
const loopMs = median(walls.loop);
const plainMs = median(walls.plain);
const toolMs = median(walls.tool);
const gatewayMs = median(walls.gateway);
const own = (loopMs - plainMs - steps * (toolMs + gatewayMs)) / steps;
console.log(`\n${process.version}, --api ${api}, ${steps} tool steps, median of ${runs} alternating runs\n`);
console.log('| measure | ms |');
console.log('|---|---:|');
console.log(`| one-shot with a ${steps}-step tool loop (wall) | ${fmt(loopMs)} |`);
console.log(`| one-shot without tools (wall: start-up and one request) | ${fmt(plainMs)} |`);
console.log(`| the tool alone, per call | ${fmt(toolMs)} |`);
console.log(`| the gateway alone, per follow-up request | ${fmt(gatewayMs)} |`);
console.log(`| **gatechat's own time per step** (target ≤ 5) | **${fmt(own)}** |`);
