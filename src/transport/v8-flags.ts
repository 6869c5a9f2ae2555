import { setFlagsFromString } from 'node:v8';

// V8 settings for a process that reads one streamed answer, set just before the first request.
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

let applied = false;

/** Once per process, before undici compiles its HTTP parser (it does so on the first connection). */
export function tuneV8ForStreaming(): void {
  if (applied) return;
  applied = true;
  // V8 rejects a code cache made under other flags: bin/code-cache.js saves what start-up compiled now.
  (process as NodeJS.EventEmitter).emit('gatechat:before-v8-flags');
  // undici parses HTTP with llhttp compiled to WebAssembly. V8's optimising WASM tier costs ~35 MiB
  // and tens of ms per run for a parser that handles one response; the baseline compiler is plenty.
  // Must be set before undici compiles it (measured: peak RSS 91 → 56 MiB, bench/run.mjs).
  // Stryker disable next-line StringLiteral: V8 flags tune memory/tiering only; no test can observe them
  setFlagsFromString('--liftoff-only');
  // Node 24's V8 no longer honours --liftoff-only set at run time; a tier-up budget nothing reaches
  // keeps llhttp on the baseline tier there too (piped 2000-token answer: peak RSS 100 → 80 MiB).
  // Stryker disable next-line StringLiteral: V8 flags tune memory/tiering only; no test can observe them
  setFlagsFromString('--wasm-tiering-budget=2000000000');
  // Optimise JavaScript ten times later than V8's defaults: a one-shot answer ends before its hot
  // loop would pay back TurboFan/Maglev compiles (piped 2000-token answer, peak RSS: Node 20 64 → 60,
  // Node 22 64 → 58, Node 24 75 → 70 MiB; CPU equal or lower). A 100k-token stream still tiers up.
  // Stryker disable next-line StringLiteral,LogicalOperator,ArrayDeclaration: V8 flags tune memory/tiering only; no test can observe them
  for (const flag of TIER_UP_LATER[process.versions.node.split('.')[0]] ?? []) setFlagsFromString(flag);
}
