#!/usr/bin/env node
// Shim: all code lives in the bundled build (npm ci builds it through `prepare`).
import { readFileSync } from 'node:fs';
import module from 'node:module';
import v8 from 'node:v8';

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  // Scripts call `--version` to probe for the tool: answer without loading the CLI at all.
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  // undici parses HTTP with llhttp compiled to WebAssembly. V8's optimising WASM tier costs ~35 MiB
  // and tens of ms per run for a parser that handles one response; the baseline compiler is plenty.
  // Must be set before undici compiles it (measured: peak RSS 91 → 56 MiB, bench/run.mjs).
  v8.setFlagsFromString('--liftoff-only');

  // Cache compiled bytecode between runs where the Node version offers it (22.1+); a no-op on 20.
  module.enableCompileCache?.();

  await import('../dist/cli.js');
}
