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
  // V8 flags for streaming are set at the first request (src/transport/v8-flags.ts), not here: set
  // at start, they would cost every built-in module loaded afterwards its code cache.
  const { runWithCodeCache } = await import('./code-cache.js');
  runWithCodeCache(require('node:url').fileURLToPath(new URL('../dist/cli.cjs', import.meta.url)));
}
