// SPEC §10 "usage ledger" (issue 17): appending a line costs ≤ 1 ms of a one-shot, printed beside the
// one-shot's own figures; `gatechat usage` over 100 000 lines < 1 s, beside baselines of the same run:
// `node -e 0`, `gatechat usage` over an empty ledger, and a naive script that reads the file whole and
// JSON.parses every line. Prints numbers; asserts nothing. Run: node bench/money.mjs (RUNS=15 for more).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bin, fmt, median, repoRoot, series, startDevGateway } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 9);
const node = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'gatechat-bench-money-'));
const gateway = await startDevGateway();

try {
  // 1. The append itself, in-process: the ledger module as the bundle has it, one line per call.
  const entry = join(work, 'append.mjs');
  await build({
    stdin: {
      contents: `import { UsageLedger } from ${JSON.stringify(join(repoRoot, 'src/session/ledger.ts'))};
        const ledger = new UsageLedger({ profile: undefined }, (l) => { throw new Error(l); }, process.argv[2]);
        const result = { text: '', reasoning: null, tool_calls: [], finish_reason: 'stop', raw_finish_reason: null,
          usage: { input_tokens: 1200, output_tokens: 80, cache_read_tokens: 900, cache_write_tokens: 0 },
          model: 'anthropic/claude-sonnet-4.5', api: 'chat', cid: 'c_0123456789abcdef', cost: { usd: 0.00102, source: 'gateway' } };
        const times = [];
        for (let i = 0; i < 2000; i++) { const t = process.hrtime.bigint(); ledger.record(result, 'complete', 'm'); times.push(Number(process.hrtime.bigint() - t) / 1e6); }
        times.sort((a, b) => a - b);
        console.log(JSON.stringify({ median: times[1000], p99: times[1980] }));`,
      resolveDir: repoRoot,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: entry,
    logLevel: 'error',
  });
  const { execFileSync } = await import('node:child_process');
  const append = JSON.parse(execFileSync(node, [entry, join(work, 'append-data')], { encoding: 'utf8' }));

  // 2. A one-shot with the ledger and without it (config ledger false), same gateway, same run.
  const withDir = join(work, 'with');
  const withoutDir = join(work, 'without');
  mkdirSync(join(withoutDir, 'config'), { recursive: true });
  writeFileSync(join(withoutDir, 'config', 'config.json'), JSON.stringify({ ledger: false }));
  const oneShotArgv = [node, bin, '--base-url', gateway.base, '-m', 'lorem-2000+cost', '--no-save', 'bench'];
  const oneShot = (dir, n) => series(oneShotArgv, n, { env: { ...process.env, GATECHAT_CONFIG_DIR: join(dir, 'config'), GATECHAT_DATA_DIR: join(dir, 'data') } });
  const nodeBaseline = await series([node, '-e', '0'], runs);
  // Interleaved, so load that comes and goes on a shared machine hits both alike.
  const withRuns = [];
  const withoutRuns = [];
  for (let i = 0; i < runs; i++) {
    withRuns.push(await oneShot(withDir, 1));
    withoutRuns.push(await oneShot(withoutDir, 1));
  }
  const withLedger = median(withRuns.map((r) => r.wallMs));
  const withoutLedger = median(withoutRuns.map((r) => r.wallMs));

  // 3. gatechat usage over 100 000 lines.
  const ledgerDir = join(work, 'ledger');
  const emptyDir = join(work, 'empty');
  mkdirSync(ledgerDir);
  mkdirSync(emptyDir);
  const models = ['anthropic/claude-sonnet-4.5', 'openai/gpt-4o-mini', 'deepseek/deepseek-chat', 'google/gemini-2.5-flash'];
  const now = Date.now();
  const lines = [];
  for (let i = 0; i < 100_000; i++) {
    const unknown = i % 9 === 0;
    lines.push(JSON.stringify({ ts: new Date(now - (100_000 - i) * 20_000).toISOString(), profile: i % 4 ? null : 'work', model: models[i % 4], api: 'chat', in: 1200 + (i % 50), out: 80, cache_read: 900, cache_write: 0, cost: unknown ? null : 0.00102, cost_source: unknown ? null : 'gateway', status: 'complete', cid: `c_${i.toString(16).padStart(12, '0')}` }));
  }
  writeFileSync(join(ledgerDir, 'usage.jsonl'), `${lines.join('\n')}\n`);
  const usage = (dir, by) => series([node, bin, 'usage', '--since', '30d', '--by', by], runs, { env: { ...process.env, GATECHAT_DATA_DIR: dir, GATECHAT_CONFIG_DIR: join(work, 'none') } });
  const naive = join(work, 'naive.mjs');
  writeFileSync(naive, `import { readFileSync } from 'node:fs'; const s = new Map(); for (const l of readFileSync(process.argv[2], 'utf8').split('\\n')) { if (!l) continue; const r = JSON.parse(l); s.set(r.model, (s.get(r.model) ?? 0) + (r.cost ?? 0)); } console.log(s.size);`);
  const usageEmpty = await usage(emptyDir, 'day');
  const usageDay = await usage(ledgerDir, 'day');
  const usageModel = await usage(ledgerDir, 'model');
  const naiveRun = await series([node, naive, join(ledgerDir, 'usage.jsonl')], runs);
  const mb = (lines.join('\n').length / 1024 / 1024).toFixed(1);

  console.log(`\ngatechat money benchmark — median of ${runs} runs, Node ${process.version} (a shared machine: compare figures of this run only)\n`);
  console.log('| run | median wall ms | CPU s |');
  console.log('|---|---:|---:|');
  const row = (name, r) => console.log(`| ${name} | ${fmt(r.wallMs ?? r)} | ${r.cpuS === undefined ? '' : fmt(r.cpuS, 2)} |`);
  row('node -e 0', nodeBaseline);
  row('one-shot lorem-2000, ledger on', withLedger);
  row('one-shot lorem-2000, ledger false', withoutLedger);
  row('gatechat usage, empty ledger', usageEmpty);
  row(`gatechat usage --by day, 100 000 lines (${mb} MiB)`, usageDay);
  row('gatechat usage --by model, 100 000 lines', usageModel);
  row('naive script: read whole + JSON.parse every line', naiveRun);
  console.log('\n| SPEC §10 figure | measured | target | |');
  console.log('|---|---:|---:|---|');
  console.log(`| ledger append, in-process (median of 2000; p99 ${fmt(append.p99, 3)} ms) | ${fmt(append.median, 3)} ms | ≤ 1 ms of a one-shot | ${append.median <= 1 ? 'met' : 'NOT met'} |`);
  console.log(`| one-shot with the ledger − without (own cost ${fmt(withoutLedger - nodeBaseline.wallMs)} ms without it) | ${fmt(withLedger - withoutLedger)} ms | ≤ 1 ms (noise: ± a few ms) | |`);
  console.log(`| gatechat usage over 100 000 lines (${fmt(usageDay.wallMs / naiveRun.wallMs, 2)}× the naive script) | ${fmt(usageDay.wallMs)} ms | < 1000 ms | ${usageDay.wallMs < 1000 ? 'met' : 'NOT met'} |`);
} finally {
  gateway.stop();
  rmSync(work, { recursive: true, force: true });
}
