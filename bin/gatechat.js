#!/usr/bin/env node
// Shim: all code lives in the bundled build (npm ci builds it through `prepare`).
import module from 'node:module';

// Cache compiled bytecode between runs where the Node version offers it (22.1+); a no-op on 20.
module.enableCompileCache?.();

await import('../dist/cli.js');
