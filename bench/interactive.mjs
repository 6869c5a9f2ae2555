#!/usr/bin/env node
// Interactive chat benchmark (SPEC §10), in a real pseudo-terminal driven by tmux against the dev
// gateway (`gatechat serve`): CPU time per streamed token with no history vs a 500-turn history
// (--cid), and time from launch until the prompt box is on screen (new chat, and a resumed one that
// prints its last turns first). Baselines (`node -e 0`) are taken in the same run: compare ratios. Prints numbers, asserts nothing. Needs `npm run build` first.
//
//   node bench/interactive.mjs [--runs 3] [--tokens 2000]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, tokens: { type: 'string', default: '2000' } } });
const RUNS = Number(values.runs);
const TOKENS = Number(values.tokens);
const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin', 'gatechat.js');
// A fresh tmux server (socket) for each pane: a server just killed may still be shutting down, and a
// new session on its socket then fails with "server exited unexpectedly".
let paneCount = 0;
let socket = '';
const READY = 'Ask anything';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function killServer() {
  if (!socket) return;
  try {
    tmux('kill-server');
  } catch {
    // Already gone.
  }
}

async function startGatewayProcess() {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = /listening on (http:\/\/\S+?)\/v1/.exec(log);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${log}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** A conversation file in the store's format: meta line, then user/assistant records. */
function writeHistory(dataDir, turns) {
  const cid = '20250101-000000-bench';
  const dir = join(dataDir, 'conversations');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ts = new Date().toISOString();
  const lines = [{ type: 'meta', v: 1, cid, created: ts, model: 'echo', api: 'chat' }];
  const answer = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8).trim();
  for (let i = 0; i < turns; i++) {
    lines.push({ type: 'user', ts, content: `question number ${i}: what about this?` });
    lines.push({
      type: 'assistant', ts, content: answer, reasoning: null, tool_calls: [], status: 'complete', finish_reason: 'stop',
      raw_finish_reason: 'stop', usage: { input_tokens: 10, output_tokens: 64 }, model: 'echo', api: 'chat',
      params: { stream: true }, timings: { first_token_ms: 1, total_ms: 2 },
    });
  }
  writeFileSync(join(dir, `${cid}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { mode: 0o600 });
  return cid;
}

function startPane(command, env) {
  killServer();
  socket = `gatechat-bench-${process.pid}-${++paneCount}`;
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${q(v)}`).join(' ');
  const started = performance.now();
  tmux('new-session', '-d', '-x', '120', '-y', '40', `env -u CI -u CONTINUOUS_INTEGRATION ${assignments} ${command}; exec sleep 3600`);
  return started;
}

const screen = () => tmux('capture-pane', '-p', '-J');

async function waitFor(test, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const s = screen();
    if (test(s)) return s;
    await sleep(5);
  }
  throw new Error(`timed out waiting for ${what}:\n${screen()}`);
}

/** The node process in the pane: the shell's child (env execs node). */
function programPid() {
  const shell = tmux('display-message', '-p', '#{pane_pid}').trim();
  const child = execFileSync('ps', ['-o', 'pid=', '--ppid', shell], { encoding: 'utf8' }).trim().split('\n')[0].trim();
  return Number(child);
}

function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLK_TCK) * 1000;
}

async function timeToReady(command, marker, env) {
  const started = startPane(command, env);
  await waitFor((s) => s.includes(marker), marker);
  return performance.now() - started;
}

async function cpuPerToken(gatewayUrl, env, extraArgs) {
  const cmd = `${q(process.execPath)} ${q(BIN)} chat --base-url ${q(gatewayUrl)} -m lorem-${TOKENS} --no-save ${extraArgs}`;
  startPane(cmd, env);
  await waitFor((s) => s.includes(READY), 'the prompt');
  const pid = programPid();
  await sleep(300); // let start-up work (Markdown module load) finish before measuring
  const before = cpuMs(pid);
  tmux('send-keys', '-l', 'go');
  tmux('send-keys', 'Enter');
  await waitFor((s) => s.includes(`out ${TOKENS} tokens`), 'the end of the answer', 60_000);
  const after = cpuMs(pid);
  tmux('send-keys', 'C-d');
  return ((after - before) * 1000) / TOKENS; // µs per token
}

const home = mkdtempSync(join(tmpdir(), 'gc-bench-'));
const env = { HOME: home, GATECHAT_CONFIG_DIR: join(home, 'config'), GATECHAT_DATA_DIR: join(home, 'data'), TERM: 'xterm-256color' };
const cid = writeHistory(env.GATECHAT_DATA_DIR, 500);
const gateway = await startGatewayProcess();
try {
  const baseline = [];
  const ready = [];
  const resumed = [];
  for (let i = 0; i < RUNS + 2; i++) {
    baseline.push(await timeToReady(`${q(process.execPath)} -e ${q('console.log("BASELINE-READY")')}`, 'BASELINE-READY', env));
    ready.push(await timeToReady(`${q(process.execPath)} ${q(BIN)} chat --base-url ${q(gateway.url)} -m echo --no-save`, READY, env));
    // A resumed chat loads the file and prints the last turns before the prompt.
    resumed.push(await timeToReady(`${q(process.execPath)} ${q(BIN)} chat --base-url ${q(gateway.url)} --cid ${cid} --no-save`, READY, env));
  }
  const none = [];
  const withHistory = [];
  for (let i = 0; i < RUNS; i++) {
    none.push(await cpuPerToken(gateway.url, env, ''));
    withHistory.push(await cpuPerToken(gateway.url, env, `--cid ${cid}`));
  }
  const b = median(baseline);
  const r = median(ready);
  const rr = median(resumed);
  const n = median(none);
  const h = median(withHistory);
  const fmt = (x) => x.toFixed(1);
  console.log(`interactive benchmark (tmux 120x40, dev gateway, lorem-${TOKENS}, median of ${RUNS}; CLK_TCK ${CLK_TCK})`);
  console.log(`  baseline: node -e 'console.log(…)' until it shows    ${fmt(b)} ms`);
  console.log(`  prompt ready after launch                             ${fmt(r)} ms  (${(r / b).toFixed(2)}× baseline; target ≤ 600 ms)`);
  console.log(`  prompt ready, resumed 500-turn chat (--cid)          ${fmt(rr)} ms  (${(rr / b).toFixed(2)}× baseline)`);
  console.log(`  CPU per streamed token, no history                    ${fmt(n)} µs  [${none.map(fmt).join(', ')}]`);
  console.log(`  CPU per streamed token, 500-turn history (--cid)      ${fmt(h)} µs  [${withHistory.map(fmt).join(', ')}]`);
  console.log(`  ratio history / none                                  ${(h / n).toFixed(2)}×  (target ≤ 1.2×)`);
} finally {
  gateway.stop();
  killServer();
  rmSync(home, { recursive: true, force: true });
}
