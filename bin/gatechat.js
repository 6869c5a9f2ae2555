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

  // Cache compiled bytecode between runs where the Node version offers it (22.1+); a no-op on 20.
  module.enableCompileCache?.();

  await import('../dist/cli.js');
}
