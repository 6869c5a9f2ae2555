#!/usr/bin/env node
// Shim: all code lives in the bundled build (npm ci builds it through `prepare`).
//
// CommonJS (bin/package.json), like the build it loads: an ES-module entry makes Node load its ESM
// loader — a dozen internal modules (resolve, module_job, translators, …) — before anything runs, a cost
// the least Node client (a CommonJS script, bench/node-http-floor.cjs) does not pay.
'use strict';

const path = require('node:path');

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  // Scripts call `--version` to probe for the tool: answer without loading the CLI at all.
  process.stdout.write(`${JSON.parse(require('node:fs').readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
} else {
  // V8 flags for streaming are set at the first request (src/transport/v8-flags.ts), not here: set
  // at start, they would cost every built-in module loaded afterwards its code cache.
  require('./code-cache.js').runWithCodeCache(path.join(__dirname, '..', 'dist', 'cli.cjs'));
}
