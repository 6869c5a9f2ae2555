#!/usr/bin/env node
// Shim: all code lives in the bundled build (npm ci builds it through `prepare`).
import module from 'node:module';

// Built-ins through require(): an ESM import of node:fs or node:v8 makes Node build their namespace
// objects, reading every lazy getter (34 and 30 more internal modules on Node 24).
const require = module.createRequire(import.meta.url);

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  // Scripts call `--version` to probe for the tool: answer without loading the CLI at all.
  process.stdout.write(`${JSON.parse(require('node:fs').readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  // undici parses HTTP with llhttp compiled to WebAssembly. V8's optimising WASM tier costs ~35 MiB
  // and tens of ms per run for a parser that handles one response; the baseline compiler is plenty.
  // Must be set before undici compiles it (measured: peak RSS 91 → 56 MiB, bench/run.mjs).
  const v8 = require('node:v8');
  v8.setFlagsFromString('--liftoff-only');
  // Node 24's V8 no longer honours --liftoff-only set at run time; a tier-up budget nothing reaches
  // keeps llhttp on the baseline tier there too (piped 2000-token answer: peak RSS 100 → 80 MiB).
  v8.setFlagsFromString('--wasm-tiering-budget=2000000000');
  // Optimise JavaScript ten times later than V8's defaults: a one-shot answer ends before its hot
  // loop would pay back TurboFan/Maglev compiles (piped 2000-token answer, peak RSS: Node 20 64 → 60,
  // Node 24 75 → 70 MiB; CPU equal or lower). A 100k-token stream still tiers up, at ~10% more CPU.
  // Node 22 gained nothing measurable, so it keeps the defaults. The flags differ by V8 version (an
  // unknown one prints an error), so only the lines they were measured on get them.
  const tierUpLater = {
    20: ['--interrupt-budget=675840', '--invocation-count-for-osr=5000'],
    24: ['--invocation-count-for-maglev=4000', '--invocation-count-for-turbofan=30000', '--invocation-count-for-maglev-osr=1000', '--invocation-count-for-osr=5000'],
  };
  for (const flag of tierUpLater[process.versions.node.split('.')[0]] ?? []) v8.setFlagsFromString(flag);

  // Cache compiled bytecode between runs where the Node version offers it (22.1+); a no-op on 20.
  module.enableCompileCache?.();

  await import('../dist/cli.js');
}
