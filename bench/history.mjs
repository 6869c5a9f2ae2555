// History benchmark (SPEC §10 history row, §17 "Scale"): `gatechat history list` over COUNT
// conversations of KB KiB each (default 10 000 × 100 KiB = 1 GB), one of them corrupt, beside
// `node -e 0` in the same run: the first listing (no index yet: every file read once), then warm
// listings from the index, `history list TEXT`, and peak RSS beside the same count of 1 KiB files
// (flat in the size of the files). Prints numbers; asserts nothing; noisy on a shared machine.
// Run: npm run build && node bench/history.mjs   (RUNS=5, COUNT=10000, KB=100; KEEP=1 keeps the files)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, fmt, measure, series } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 5);
const count = Number(process.env.COUNT ?? 10_000);
const kib = Number(process.env.KB ?? 100);
const node = process.execPath;
const root = mkdtempSync(join(tmpdir(), 'gatechat-bench-history-'));

/** A data dir of `n` conversations of about `size` KiB: 10 turns, each a short prompt and a long answer. */
function populate(name, n, size) {
  const dataDir = join(root, name);
  const dir = join(dataDir, 'conversations');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const turns = 10;
  const answerChars = Math.max(10, Math.floor((size * 1024) / turns) - 400);
  const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(Math.ceil(answerChars / 57)).slice(0, answerChars);
  for (let i = 0; i < n; i++) {
    const stamp = new Date(Date.UTC(2026, 0, 1) + i * 60_000);
    const cid = `${stamp.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${(i % 65536).toString(16).padStart(4, '0')}`;
    const lines = [JSON.stringify({ type: 'meta', v: 1, cid, created: stamp.toISOString(), model: 'echo', api: 'chat', system: null })];
    for (let t = 0; t < turns; t++) {
      const ts = new Date(stamp.getTime() + t * 1000).toISOString();
      lines.push(JSON.stringify({ type: 'user', turn: `t${t}`, ts, content: `question ${t} of conversation ${i}: tell me about ${i % 7 === 0 ? 'kites' : 'boats'}` }));
      lines.push(
        JSON.stringify({
          type: 'assistant', turn: `t${t}`, ts, content: filler, reasoning: null, tool_calls: [], status: 'complete', finish_reason: 'stop',
          raw_finish_reason: 'stop', usage: { input_tokens: 100, output_tokens: 1000 }, model: 'echo', api: 'chat', params: { stream: true },
          timings: { first_token_ms: 10, total_ms: 100 },
        }),
      );
    }
    writeFileSync(join(dir, `${cid}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 });
  }
  // One file that does not parse: named in one warning line, the rest listed.
  writeFileSync(join(dir, '20250101-000000-dead.jsonl'), '\u0000 not a conversation\n');
  return dataDir;
}

const envFor = (dataDir) => ({ ...process.env, GATECHAT_CONFIG_DIR: join(root, 'config'), GATECHAT_DATA_DIR: dataDir });
const list = (...args) => [node, bin, 'history', 'list', ...args];

try {
  let started = Date.now();
  const big = populate('big', count, kib);
  const small = populate('small', count, 1);
  console.log(`wrote ${count} conversations of ~${kib} KiB and ${count} of ~1 KiB in ${fmt((Date.now() - started) / 1000)} s`);

  const rows = [];
  const add = (name, r) => rows.push({ name, ...r });
  add('node -e 0', await series([node, '-e', '0'], runs));
  // The floor of any listing that notices changed files: readdir and an lstat of each, nothing read.
  const floor = `const fs=require('fs'),d=${JSON.stringify(join(big, 'conversations'))};for(const n of fs.readdirSync(d))fs.lstatSync(d+'/'+n)`;
  add(`floor: readdir + lstat of ${count} files (node -e)`, await series([node, '-e', floor], runs));
  started = Date.now();
  const cold = await measure(list(), { env: envFor(big) });
  if (cold.code !== 0) throw new Error(`history list exited ${cold.code}`);
  add(`history list, no index yet (reads ${count} files once)`, cold);
  await measure(list(), { env: envFor(small) }); // the small set's index
  const warm = await series(list(), runs, { env: envFor(big) });
  add(`history list, ${count} × ${kib} KiB, from the index`, warm);
  add(`history list kites, ${count} × ${kib} KiB`, await series(list('kites'), runs, { env: envFor(big) }));
  const warmSmall = await series(list(), runs, { env: envFor(small) });
  add(`history list, ${count} × 1 KiB, from the index`, warmSmall);
  const base = rows[0];

  console.log(`\ngatechat history benchmark — median of ${runs} runs (cold: one run), peak RSS = max over runs, Node ${process.version}\n`);
  console.log(`${'figure'.padEnd(58)} ${'wall ms'.padStart(9)} ${'− node'.padStart(9)} ${'RSS MiB'.padStart(9)}`);
  for (const r of rows) console.log(`${r.name.padEnd(58)} ${fmt(r.wallMs, 0).padStart(9)} ${fmt(r.wallMs - base.wallMs, 0).padStart(9)} ${fmt(r.rssMiB).padStart(9)}`);
  const floorRow = rows[1];
  console.log(`\nwarm listing: ${fmt(warm.wallMs, 0)} ms (target < 500 ms), ${fmt((warm.wallMs - base.wallMs) / Math.max(1, floorRow.wallMs - base.wallMs), 1)} × the readdir + lstat floor's own cost`);
  console.log(`RSS over ${kib} KiB files ÷ over 1 KiB files: ${fmt(warm.rssMiB / warmSmall.rssMiB, 2)} (flat = 1.0)`);
} finally {
  if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
  else console.log(`kept ${root}`);
}
