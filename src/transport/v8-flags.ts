import { setFlagsFromString } from 'node:v8';

// V8 settings for a process that reads one streamed answer, set at the first request: before it on
// undici's route, once it is written on the direct node:http route (src/transport/dispatchers.ts).
//
// Not at start: any V8 flag set at run time changes V8's flag hash, and Node's built-in modules carry a
// code cache built under the default hash — every built-in loaded after the change is compiled from
// source instead (node:http, node:assert, node:fs/promises: 2.8 → 8.9 ms on each Node line). By the
// first request every built-in a one-shot needs is loaded, so the cache has done its work.

/** The flags differ by V8 version (an unknown one prints an error): each line gets what was measured on it. */
const MAGLEV_AND_TURBOFAN_LATER = ['--invocation-count-for-maglev=4000', '--invocation-count-for-turbofan=30000', '--invocation-count-for-maglev-osr=1000', '--invocation-count-for-osr=5000'];
const TIER_UP_LATER: Record<string, string[]> = {
  20: ['--interrupt-budget=675840', '--invocation-count-for-osr=5000'],
  22: MAGLEV_AND_TURBOFAN_LATER,
  24: MAGLEV_AND_TURBOFAN_LATER,
};

/**
 * Every flag above at its default (`node --v8-options`), --liftoff-only's implications included: with
 * them back, V8's flag hash is the one the process started with, so bin/code-cache.js can write at exit a
 * cache that holds what the answer compiled too (SSE, decoding, output) and the next start accepts. A
 * wrong value only means it does not: code-cache.js checks the hash with a probe before relying on it.
 */
const WASM_DEFAULTS = ['--no-liftoff-only', '--liftoff', '--wasm-tier-up', '--wasm-dynamic-tiering'];
const DEFAULTS: Record<string, string[]> = {
  20: [...WASM_DEFAULTS, '--wasm-tiering-budget=1800000', '--interrupt-budget=67584', '--invocation-count-for-osr=500'],
  22: [...WASM_DEFAULTS, '--wasm-tiering-budget=13000000', '--invocation-count-for-maglev=400', '--invocation-count-for-turbofan=3000', '--invocation-count-for-maglev-osr=100', '--invocation-count-for-osr=800'],
  // Node 24.21's V8 prints 3000 and 500 as the last two defaults, but runs with 10000 and 800 (the values
  // that leave its flag hash unchanged when set).
  24: [...WASM_DEFAULTS, '--wasm-tiering-budget=13000000', '--invocation-count-for-maglev=400', '--invocation-count-for-turbofan=10000', '--invocation-count-for-maglev-osr=100', '--invocation-count-for-osr=800'],
};

/** What bin/code-cache.js is told just before the flags change (the event `gatechat:before-v8-flags`). */
export interface V8FlagChange {
  /** The flags about to be set, in order. */
  set: string[];
  /** Setting these afterwards puts each back to its default (empty when not known for this line). */
  defaults: string[];
  /**
   * This run's caches are the kind a run that answers one prompt replaces (`.exit.v8`, bin/code-cache.js):
   * a batch compiles its own view of the chunks it shares with a one-shot, and the first `.v8` written for
   * a chunk is kept for good.
   */
  replaceable?: boolean;
}

let applied = false;

/**
 * Once per process, before undici compiles its HTTP parser (it does so on the first connection).
 * `more`: flags a command sets at the same moment, put back at exit the same way (a batch's heap sizing:
 * set apart, they changed the flag hash again and no cache could be written that a start accepts).
 * Given after the flags were set, they are set at once, and the caches of that run are not written.
 */
export function tuneV8ForStreaming(more?: V8FlagChange): void {
  if (applied) {
    // Stryker disable next-line StringLiteral: V8 flags tune memory/tiering only; no test can observe them
    for (const flag of more?.set ?? []) setFlagsFromString(flag);
    return;
  }
  applied = true;
  const major = process.versions.node.split('.')[0];
  const flags = [
    // undici parses HTTP with llhttp compiled to WebAssembly. V8's optimising WASM tier costs ~35 MiB
    // and tens of ms per run for a parser that handles one response; the baseline compiler is plenty.
    // Must be set before undici compiles it (measured: peak RSS 91 → 56 MiB, bench/run.mjs).
    '--liftoff-only',
    // Node 24's V8 no longer honours --liftoff-only set at run time; a tier-up budget nothing reaches
    // keeps llhttp on the baseline tier there too (piped 2000-token answer: peak RSS 100 → 80 MiB).
    '--wasm-tiering-budget=2000000000',
    // Optimise JavaScript ten times later than V8's defaults: a one-shot answer ends before its hot
    // loop would pay back TurboFan/Maglev compiles (piped 2000-token answer, peak RSS: Node 20 64 → 60,
    // Node 22 64 → 58, Node 24 75 → 70 MiB; CPU equal or lower). A 100k-token stream still tiers up.
    // Node 24, from the response headers to exit (docs/benchmarks.md, "Node 24"): 29.5 → 24.8 ms,
    // worker-thread CPU 7.7 → 3.4 ms. Later still (Maglev at 20000) or earlier (1000, 400), no Maglev,
    // or Sparkplug off the worker threads (24's default is on them) measured equal or worse.
    // Stryker disable next-line LogicalOperator,ArrayDeclaration: V8 flags tune memory/tiering only; no test can observe them
    ...(TIER_UP_LATER[major] ?? []),
  ];
  // V8 rejects a code cache made under other flags: bin/code-cache.js saves what start-up compiled now,
  // or, when putting the defaults back restores the flag hash, at exit.
  const known = DEFAULTS[major] ?? [];
  const change: V8FlagChange = {
    set: [...flags, ...(more?.set ?? [])],
    // Unknown for this line: none at all, so code-cache.js saves what start-up compiled before the change.
    defaults: known.length > 0 ? [...known, ...(more?.defaults ?? [])] : [],
    replaceable: more?.replaceable === true,
  };
  (process as NodeJS.EventEmitter).emit('gatechat:before-v8-flags', change);
  // Stryker disable next-line StringLiteral: V8 flags tune memory/tiering only; no test can observe them
  for (const flag of change.set) setFlagsFromString(flag);
}
