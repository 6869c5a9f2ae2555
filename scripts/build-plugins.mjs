// The esbuild plugins of scripts/build.mjs: how Node's built-ins are reached, and which parts of undici
// and Ink the bundle leaves out or changes. Each one exists for start-up time or memory, measured in
// docs/benchmarks.md.
import { readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The key (a `Symbol.for`) that marks a namespace made by the shims below as final: scripts/build.mjs's
 * __toESM hands it to the importer as it is.
 */
export const BUILTIN_NAMESPACE = 'gatechat.builtin-namespace';

/**
 * Built-ins whose shim requires them on first use of an export, not at start. node:crypto (ids and
 * hashes for saved conversations and blobs) and node:zlib (compressed answers only): the piped
 * one-shot rarely calls them (Node 20: ~5 ms for crypto's 15 internal modules). node:util: undici
 * loads it anyway, but esbuild's __toESM reads every property descriptor of what it wraps, and on
 * Node 22+ that materialises util's lazy exports (parse_args, worker_threads, assert's diff: ~30
 * internal modules) — the shim's namespace is never copied. A default import gets that namespace,
 * which serves the same names. node:timers/promises: only a retry waits (~0.5 ms to load).
 * node:v8 (~0.35 ms with heap_utils and promise_hooks): its flags are set once a direct request is sent
 * (src/transport/dispatchers.ts), so it loads then, not with the one-shot chunk. node:os (~0.2 ms): the
 * home directory is read from $HOME where it can (src/config/home.ts), so only a conversation's lock
 * (its hostname, storage/file-lock.ts) loads it: a run that saves nothing (--no-save, --dry-run,
 * `gatechat tools`) never does.
 */
const builtinsOnFirstUse = new Set(['node:crypto', 'node:zlib', 'node:util', 'node:timers/promises', 'node:v8', 'node:os']);

/**
 * Node built-ins through require(), not ESM import. An ESM import of a CommonJS built-in makes Node
 * build its namespace object, which reads every lazy getter: `node:http` then loads Node's own
 * bundled undici (~18 ms on 22+), `node:fs` 34 more internal modules, `node:util` worker_threads,
 * `node:crypto` WebCrypto. esbuild's __toESM wrapper copies getters without calling them.
 */
export const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    build.onResolve({ filter: /^[a-z0-9_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined;
      // commander requires child_process at load time for executable subcommands, which gatechat
      // has none of: a proxy loads it on first use instead (~3 MiB with dgram on every start).
      if (args.kind === 'require-call' && /child_process$/.test(args.path) && /[\\/]commander[\\/]/.test(args.importer)) {
        return { path: args.path, namespace: 'builtin-lazy' };
      }
      // The require() inside the shim module itself stays external (the CommonJS chunk's own require). A
      // dynamic import() stays native too: split into a chunk, a CommonJS shim would export only `default`.
      if (args.namespace === 'builtin-cjs' || args.namespace === 'builtin-lazy' || args.namespace === 'builtin-on-use' || args.kind === 'require-call' || args.kind === 'dynamic-import') return { path: args.path, external: true };
      if (builtinsOnFirstUse.has(args.path)) return { path: args.path, namespace: 'builtin-on-use' };
      return { path: args.path, namespace: 'builtin-cjs' };
    });
    // The namespace inherits from a proxy until first use, then from the built-in itself: nothing is
    // listed or copied at start (a getter per export made crypto, util and zlib cost ~70 KB at start).
    build.onLoad({ filter: /.*/, namespace: 'builtin-on-use' }, (args) => ({
      contents: `const load = () => { const builtin = require(${JSON.stringify(args.path)}); Object.setPrototypeOf(namespace, builtin); return builtin; };
const namespace = Object.create(new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() }));
Object.defineProperty(namespace, 'default', { value: namespace, enumerable: true });
Object.defineProperty(namespace, Symbol.for(${JSON.stringify(BUILTIN_NAMESPACE)}), { value: true });
module.exports = namespace;`,
      loader: 'js',
    }));
    build.onLoad({ filter: /.*/, namespace: 'builtin-lazy' }, (args) => ({
      contents: `let loaded; module.exports = new Proxy({}, { get: (_, key) => (loaded ??= require(${JSON.stringify(args.path)}))[key] });`,
      loader: 'js',
    }));
    // The namespace an import sees: an object inheriting from the built-in, with `default` its own only.
    // __toESM (scripts/build.mjs) returns it as it is instead of copying each export as a getter
    // (node:fs, path, stream, buffer, events: ~0.26 MB and ~1 ms at start). The built-in itself is never
    // changed: other code (Node's own, dependencies' require()) sees it as Node made it.
    build.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({
      contents: `const builtin = require(${JSON.stringify(args.path)});
module.exports = Object.create(builtin, { default: { value: builtin, enumerable: true }, [Symbol.for(${JSON.stringify(BUILTIN_NAMESPACE)})]: { value: true } });`,
      loader: 'js',
    }));
  },
};

const fromUndici = (importer) => /[\\/]node_modules[\\/]undici[\\/]/.test(importer);

/**
 * undici, trimmed to what gatechat runs. Each built-in below is loaded at start by undici yet used only
 * on a path a one-shot does not take; not loading them saves ~2.5 ms (Node 22: node:http 1.4, node:assert 1.0).
 * - HTTP/2: the client requires node:http2 (and with it tls) at load time, ~9 MiB on every start;
 *   gatechat never enables allowH2, so a stub says so should that change.
 * - FormData bodies: the HTTP/1 client reaches fetch's body code (65 KB of source with WebIDL and the
 *   multipart parser) only for a FormData body; gatechat sends JSON strings.
 * - node:assert: undici only calls assert(value) on invariants; the real module loads when one fails.
 * - node:http: undici reads http.maxHeaderSize once at load (Node's default unless
 *   --max-http-header-size is given) and IncomingMessage only when destroying a stream on an error path.
 */
export const undiciTrimmed = {
  name: 'undici-trimmed',
  setup(build) {
    build.onResolve({ filter: /^\.\/client-h2(\.js)?$/ }, (args) =>
      /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer) ? { path: 'client-h2', namespace: 'undici-h2-stub' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'undici-h2-stub' }, () => ({
      contents: "module.exports = function connectH2() { throw new Error('gatechat is built without undici HTTP/2 support'); };",
      loader: 'js',
    }));
    build.onResolve({ filter: /^\.\.\/web\/fetch\/body\.js$/ }, (args) =>
      /undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(args.importer) ? { path: 'fetch-body', namespace: 'undici-form-data-stub' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'undici-form-data-stub' }, () => ({
      contents: "exports.extractBody = function extractBody() { throw new Error('gatechat is built without undici FormData bodies'); };",
      loader: 'js',
    }));
    build.onResolve({ filter: /^node:(assert|http)$/ }, (args) => (fromUndici(args.importer) ? { path: args.path, namespace: 'undici-builtin' } : undefined));
    build.onLoad({ filter: /^node:assert$/, namespace: 'undici-builtin' }, () => ({
      contents: `let real; const load = () => (real ??= require('node:assert'));
function assert(value, message) { if (!value) load()(value, message); }
for (const key of ${JSON.stringify(Object.keys(createRequire(import.meta.url)('node:assert')))}) Object.defineProperty(assert, key, { get: () => load()[key] });
module.exports = assert;`,
      loader: 'js',
    }));
    build.onLoad({ filter: /^node:http$/, namespace: 'undici-builtin' }, () => ({
      contents: `let real; const load = () => (real ??= require('node:http'));
const headerSizeOption = /--max-http-header-size/.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
module.exports = {
  get maxHeaderSize() { return headerSizeOption ? load().maxHeaderSize : 16384; },
  get IncomingMessage() { return load().IncomingMessage; },
};`,
      loader: 'js',
    }));
    // util.js destructures IncomingMessage at load, which would load node:http after all.
    build.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/ }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const patched = source
        .replace("const { IncomingMessage } = require('node:http')", "const http = require('node:http')")
        .replace('constructor === IncomingMessage', 'constructor === http.IncomingMessage');
      if (patched.split('http.IncomingMessage').length !== 2 || patched.includes('{ IncomingMessage }')) {
        throw new Error('build: undici/lib/core/util.js changed; update undiciTrimmed in scripts/build.mjs');
      }
      return { contents: patched, loader: 'js' };
    });
  },
};

/**
 * Ink without top-level await, so the whole program can be CommonJS (see step 2). Two modules use one:
 * - yoga-layout's entry awaits its WebAssembly; Ink gets src/render/ink/yoga-layout.ts instead, which
 *   the UI fills (initYoga) before its first render.
 * - Ink's reconciler awaits react-devtools and its package.json only when DEV=true; gatechat ships
 *   neither devtools nor that mode, so those two awaits are cut and DEV=true gets Ink's normal path.
 */
export const inkWithoutTopLevelAwait = {
  name: 'ink-without-top-level-await',
  setup(build) {
    build.onResolve({ filter: /^yoga-layout$/ }, (args) =>
      /[\\/]node_modules[\\/]ink[\\/]/.test(args.importer) ? { path: fileURLToPath(new URL('../src/render/ink/yoga-layout.ts', import.meta.url)) } : undefined,
    );
    build.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const patched = source.replace("await import('./devtools.js');", 'void 0;').replace('? await loadPackageJson()', '? { name: undefined, version: undefined }');
      if (/\bawait import\('\.\/devtools\.js'\)|await loadPackageJson\(\)/.test(patched) || patched === source) {
        throw new Error('build: ink/build/reconciler.js changed; update inkWithoutTopLevelAwait in scripts/build.mjs');
      }
      return { contents: patched, loader: 'js' };
    });
  },
};
