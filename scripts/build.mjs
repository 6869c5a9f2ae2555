// Bundles src/ into dist/: esbuild compiles and bundles (its plugins: build-plugins.mjs), rollup then
// merges its chunks into fewer CommonJS files, which bin/code-cache.js runs with a V8 code cache. The
// piped one-shot path must not load Ink or React (SPEC §10), so the Ink UI is a separate chunk reached
// only through dynamic import().
import { build } from 'esbuild';
import { rollup } from '@rollup/wasm-node';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_NAMESPACE, builtinsByRequire, inkWithoutTopLevelAwait, undiciTrimmed } from './build-plugins.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const dist = fileURLToPath(new URL('../dist', import.meta.url));
// Build beside dist/ and swap it in, so a binary started during a rebuild never finds dist/ half-empty.
const staging = `${dist}.build-${process.pid}`;
const retired = `${dist}.old-${process.pid}`;
rmSync(staging, { recursive: true, force: true });

// Step 1, esbuild: TypeScript, JSX and the CommonJS dependencies into ESM, split at every import().
// Kept in memory; its chunks are the modules of step 2.
const esbuilt = await build({
  plugins: [inkWithoutTopLevelAwait, undiciTrimmed, builtinsByRequire],
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: staging,
  write: false,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'external',
  legalComments: 'none',
  // Less source for V8 to scan on every start (Node 20 has no compile cache) and for the compile cache
  // to hold on 22+: own cost −7 to −17 ms, −2 to −4 MiB. Names stay, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // React and its reconciler pick their development builds at run time unless NODE_ENV says otherwise:
  // those are slower, and React 19's keep every render's props in performance measures that are never
  // cleared (an endless answer on a terminal grew the heap by ~10 MB/s). Production builds only.
  define: { __GATECHAT_VERSION__: JSON.stringify(pkg.version), 'process.env.NODE_ENV': '"production"' },
  // Ink imports react-devtools-core only when DEV is set; it is not a dependency.
  external: ['react-devtools-core'],
  chunkNames: 'chunks/[name]-[hash]',
});

// Step 2, rollup: the same modules in fewer CommonJS files. esbuild gives every set of import() targets that
// share code its own chunk, so a piped one-shot loaded 32 files; each costs the ESM loader a resolve,
// a read and a module record (own cost −10 to −13 ms on Node 20, 22 and 24, measured with
// bench/nodes.mjs). What every run needs (the argument checks) becomes one chunk, what a one-shot adds
// (config, protocol, transport; undici only for pools and proxies) another; the rest keeps esbuild's split
// (commander too: main.ts imports it only for a line fast-line.ts leaves to it).
const files = new Map(esbuilt.outputFiles.map((file) => [file.path, file.text]));
// esbuild gives every `import … from` of a CommonJS module (Node's built-ins are reached as such:
// builtinsByRequire) its own copy of the module's exports, a getter per name: the piped one-shot made
// ~30 copies at start (node:path 9 times, node:crypto 5: ~2 ms), Ink's view copies React 42 times.
// One copy per module instead, made again only if the module has gained names since (one still loading
// in a require cycle is copied again once it has them all). A built-in's shim (build-plugins.mjs) makes
// its namespace itself, marked with BUILTIN_NAMESPACE: no copy at all.
const TO_ESM = 'var __toESM=(mod,isNodeMode,target)=>(target=mod!=null?__create(__getProtoOf(mod)):{},__copyProps(isNodeMode||!mod||!mod.__esModule?__defProp(target,"default",{value:mod,enumerable:!0}):target,mod));';
const TO_ESM_ONCE =
  `var __toESMCopy=${TO_ESM.slice('var __toESM='.length, -1)},__toESMCopies=[new WeakMap,new WeakMap],` +
  `__builtinNamespace=Symbol.for(${JSON.stringify(BUILTIN_NAMESPACE)}),` +
  '__toESM=(mod,isNodeMode)=>{if(mod==null||typeof mod!=="object"&&typeof mod!=="function")return __toESMCopy(mod,isNodeMode);' +
  'if(mod[__builtinNamespace]===true)return mod;' +
  'const copies=__toESMCopies[isNodeMode?1:0],names=__getOwnPropNames(mod).length,known=copies.get(mod);' +
  'if(known!==void 0&&known.names===names)return known.copy;const copy=__toESMCopy(mod,isNodeMode);copies.set(mod,{copy,names});return copy};';
let toEsmFiles = 0;
for (const [path, text] of files) {
  if (!path.endsWith('.js') || !text.includes(TO_ESM)) continue;
  files.set(path, text.replace(TO_ESM, TO_ESM_ONCE));
  toEsmFiles++;
}
if (toEsmFiles === 0) throw new Error("build: esbuild's __toESM changed; update TO_ESM in scripts/build.mjs");

const entry = join(staging, 'cli.js');
const inMemory = {
  name: 'esbuild-output',
  resolveId(source, importer) {
    const path = importer && source.startsWith('.') ? join(dirname(importer), source) : source;
    return files.has(path) ? path : undefined;
  },
  load(id) {
    const code = files.get(id);
    return code === undefined ? undefined : { code, map: files.get(`${id}.map`) };
  },
};
/** Every module a module statically imports, and theirs, and so on. */
function staticClosure(getModuleInfo, root) {
  const seen = new Set();
  const todo = [root];
  while (todo.length > 0) {
    const id = todo.pop();
    if (seen.has(id) || !files.has(id)) continue;
    seen.add(id);
    todo.push(...getModuleInfo(id).importedIds);
  }
  return seen;
}
let layers;
/** The layer of a module: `startup` (every run), `one-shot` (a request) or none (esbuild's own chunk). */
function layerOf(id, { getModuleInfo }) {
  if (!layers) {
    const oneShot = getModuleInfo(entry).dynamicallyImportedIds.find((dynamic) => /[\\/]one-shot-[^\\/]*\.js$/.test(dynamic));
    if (!oneShot) throw new Error('build: the entry no longer imports the one-shot chunk; update layerOf in scripts/build.mjs');
    layers = new Map();
    for (const module of staticClosure(getModuleInfo, oneShot)) layers.set(module, 'one-shot');
    for (const module of staticClosure(getModuleInfo, entry)) layers.set(module, 'startup');
    layers.delete(entry);
  }
  return layers.get(id);
}
/** What every chunk starts with (see `banner` below): bin/code-cache.js's, which checks for it. */
const { CHUNK_HEAD } = createRequire(import.meta.url)('../bin/code-cache.js');
const CHUNK_TAIL = '})';
const rolled = await rollup({
  input: { main: entry },
  plugins: [inMemory],
  external: (id) => isBuiltin(id) || id === 'react-devtools-core',
  // esbuild has already removed what is unused; rollup only moves modules between files.
  treeshake: false,
  onwarn(warning, warn) {
    if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
  },
});
const written = await rolled.write({
  dir: staging,
  // CommonJS, so bin/code-cache.js can run each file through vm.Script with a V8 code cache (an ES
  // module cannot be given one). Plain `node dist/cli.cjs` runs the same program without the cache.
  format: 'cjs',
  // import() becomes a require() on a resolved promise: the loader's require serves every chunk.
  dynamicImportInCjs: false,
  sourcemap: true,
  // Each file is the CommonJS wrapper itself, so bin/code-cache.js compiles the text as read: wrapping
  // it there made a second, flattened copy of every chunk in the young generation (two scavenges before
  // the request). Node's own loader (`node dist/cli.cjs`, a plain require()) wraps the file again; the
  // arrow then calls the function with that wrapper's arguments. At a script's top level (vm.Script)
  // there is no `arguments`, and the script's value is the function itself.
  banner: CHUNK_HEAD,
  footer: CHUNK_TAIL,
  manualChunks: layerOf,
  // Every file under chunks/ is named after its content: bin/code-cache.js keys V8's cache by file
  // name, and V8 itself checks only the length of the source it was made from.
  entryFileNames: 'chunks/[name]-[hash].cjs',
  // esbuild's chunk names carry its hash; rollup adds its own.
  chunkFileNames: (chunk) => `chunks/${chunk.name.replace(/-[A-Z0-9]{8}$/, '')}-[hash].cjs`,
});
await rolled.close();
const main = written.output.find((file) => file.type === 'chunk' && file.isEntry);
// The stable name the shim (and `node dist/cli.cjs`) starts from.
writeFileSync(join(staging, 'cli.cjs'), `'use strict';\nrequire('./${main.fileName}');\n`);

try {
  renameSync(dist, retired);
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
renameSync(staging, dist);
rmSync(retired, { recursive: true, force: true });
