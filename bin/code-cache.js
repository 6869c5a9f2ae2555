// Runs the CommonJS build (dist/) with a V8 code cache kept between runs.
//
// Why: compiling gatechat's start-up code was the largest share of a piped one-shot's own cost, and
// Node's own compile cache (22.1+) stores a module as compiled *before* it runs, so every function V8
// compiles lazily while the program runs is compiled again on every start; Node 20 has no cache at all.
// A cache V8 makes after the start-up code has run holds those functions too (piped 2000-token answer,
// own cost against the ES-module build with Node's compile cache: Node 20 54.6 → 42.9, 22 42.4 → 38.0,
// 24 43.7 → 39.8 ms; a first run, which writes the cache, costs 3 to 11 ms more than before).
// `node dist/cli.cjs` runs the same program without this file.
//
// The cache lives in the user's cache directory (never a shared /tmp: V8 runs what it finds there), one
// file per chunk, named after the chunk's content hash and keyed by Node's version. Any failure to read
// or write it is ignored: the cache only ever makes a start faster.
// CommonJS (bin/package.json): an ES-module entry makes Node load its whole ESM loader first.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

/** `$GATECHAT_CACHE_DIR`, else the platform's per-user cache directory. */
function cacheRoot(env = process.env) {
  if (env.GATECHAT_CACHE_DIR) return env.GATECHAT_CACHE_DIR;
  // os.homedir() is $HOME on POSIX whenever that is set (libuv reads it first): node:os stays unloaded
  // (src/config/home.ts does the same for the bundle).
  const home = (process.platform !== 'win32' && process.env.HOME) || require('node:os').homedir();
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'gatechat', 'Cache');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'gatechat');
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'gatechat');
}

/** Where this Node's caches go; null (run without a cache) when there is no home to put them in. */
function codeCacheDir() {
  try {
    return path.join(cacheRoot(), 'code-cache', `${process.version}-${process.arch}`);
  } catch {
    return null;
  }
}

/**
 * A new build's first run: caches written more than 30 days ago go. Not every other build's: another
 * install of gatechat may share this directory, and at worst a pruned cache is written again.
 */
function forgetOldBuilds(versionDir) {
  if (!fs.existsSync(versionDir)) return;
  const cutoff = Date.now() - 30 * 24 * 3600 * 1000;
  for (const name of fs.readdirSync(versionDir, { withFileTypes: true })) {
    const old = path.join(versionDir, name.name);
    if (name.isDirectory() && fs.statSync(old).mtimeMs < cutoff) fs.rmSync(old, { recursive: true, force: true });
  }
}

/**
 * The file's new content, written as src/storage/own-files.ts writes gatechat's own files: an exclusive
 * (O_EXCL, never through a link) temp file with an unpredictable name beside it, 0600 whatever the umask,
 * renamed over the target. A copy of those few lines, because this file runs before the bundle (it is
 * what loads it), and pulling a chunk in here would compile it without its cache.
 */
function writePrivateFile(target, data) {
  const random = require('node:crypto').randomBytes(12).toString('base64url');
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${random}.tmp`);
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0 } = fs.constants;
  const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    if (process.platform !== 'win32') fs.fchmodSync(fd, 0o600);
    for (let offset = 0; offset < data.length; ) {
      const written = fs.writeSync(fd, data, offset);
      if (written === 0) throw new Error(`short write: ${temp}`);
      offset += written;
    }
    fs.closeSync(fd);
    fs.renameSync(temp, target);
  } catch (error) {
    try {
      fs.closeSync(fd);
    } catch {
      // Closed already.
    }
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** How each chunk of the build starts: a function of (exports, require, module, __filename, __dirname). */
const CHUNK_HEAD = '(W=>typeof arguments=="object"?W.apply(this,arguments):W)(function (exports, require, module, __filename, __dirname) {';

/** `x.cjs.v8` → `x.cjs.exit.v8`: the cache of a chunk as a run that sent nothing left it. */
const exitFile = (cacheFile) => `${cacheFile.slice(0, -'.v8'.length)}.exit.v8`;

/** Source of the probe that tells whether V8's flag hash is back to the one the caches were made under. */
const PROBE = '"gatechat code cache probe"';
let probes = 0;

/** True when V8 accepts, now, cached data that was made for `PROBE` under the flags of its making. */
function sameFlagHash(probeData) {
  // A new file name each time: the same name would hit V8's in-process compilation cache, which never
  // looks at the cached data.
  probes += 1;
  return !new vm.Script(PROBE, { filename: `gatechat-probe-${probes}`, cachedData: probeData }).cachedDataRejected;
}

/**
 * True when setting `change.defaults` after `change.set` gives back the flag hash this process has
 * now (each V8 version has its own defaults and implications). Leaves V8 at those defaults.
 */
function flagsCanBeRestored(change) {
  if (!change || !Array.isArray(change.set) || !Array.isArray(change.defaults) || change.defaults.length === 0) return false;
  try {
    const v8 = require('node:v8');
    const probeData = new vm.Script(PROBE, { filename: 'gatechat-probe-0' }).createCachedData();
    for (const flag of change.set) v8.setFlagsFromString(flag);
    for (const flag of change.defaults) v8.setFlagsFromString(flag);
    return sameFlagHash(probeData) ? probeData : false;
  } catch {
    return false;
  }
}

/**
 * Loads `entry` (a CommonJS file of dist/) and the chunks it requires, each compiled with its cached
 * code when there is one. Returns once the entry's top level has run.
 */
function runWithCodeCache(entry) {
  const versionDir = codeCacheDir();
  /** One directory per build, named after its main chunk (whose name changes with any chunk's). */
  let dir;
  const loaded = new Map();
  /** Scripts whose cache is to be (re)written: none accepted, or one made at exit of a run that sent nothing. */
  let scripts = [];

  function load(file) {
    const known = loaded.get(file);
    if (known) return known.exports;
    const record = { exports: {} };
    loaded.set(file, record);
    // Only chunks/ is cached: each file there is named after its content (scripts/build.mjs). V8 checks
    // only a cache's source length, so a name that outlived a change of content would run stale code.
    let cacheFile = null;
    if (versionDir && path.basename(path.dirname(file)) === 'chunks') {
      dir ??= path.join(versionDir, path.basename(file, '.cjs'));
      cacheFile = path.join(dir, `${path.basename(file)}.v8`);
    }
    // Two kinds of cache per chunk: `.v8`, made by a run that sent a request (at its exit, or just before
    // its first request where V8's flags cannot be put back), and `.exit.v8`, made at the exit of a run
    // that sent none (--help, config set, the dev gateway). A run that sends replaces the second kind
    // once with the first: whatever ran first after an install does not decide for good which functions
    // a one-shot finds compiled (each one missing is compiled again at every start).
    let cachedData;
    let madeAtRequest = false;
    if (cacheFile) {
      for (const [candidate, atRequest] of [
        [cacheFile, true],
        [exitFile(cacheFile), false],
      ]) {
        try {
          cachedData = fs.readFileSync(candidate);
          madeAtRequest = atRequest;
          break;
        } catch {
          // No cache of this kind yet (or unreadable): the other kind, else compiled from source.
        }
      }
    }
    const source = fs.readFileSync(file, 'utf8');
    // A chunk is its own CommonJS wrapper (scripts/build.mjs), compiled as read: wrapping it here would
    // make V8 flatten a second copy of it. Other files (dist/cli.cjs) are wrapped as Node's loader does.
    const wrapped = source.startsWith(CHUNK_HEAD) ? source : `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
    const script = new vm.Script(wrapped, { filename: file, cachedData });
    if (cacheFile) {
      const accepted = cachedData !== undefined && !script.cachedDataRejected;
      // A `.v8` V8 refused (other flags, another build of Node, damage) goes when this run writes the chunk's
      // cache: left in place, it would be read and refused first at every start.
      const refusedAtRequest = cachedData !== undefined && !accepted && madeAtRequest;
      if (!accepted || !madeAtRequest) scripts.push({ script, cacheFile, accepted, refusedAtRequest });
    }
    const base = path.dirname(file);
    const requireFrom = (id) => (id.startsWith('.') ? load(path.join(base, id)) : require(id));
    script.runInThisContext()(record.exports, requireFrom, record, file, base);
    return record.exports;
  }

  /**
   * Writes the caches `pick` chooses, under `name(cacheFile)`; each script is written at most once.
   * `made` holds data made earlier for some scripts (V8 stamps data with the flags of its making).
   */
  function save(pick, name, made = new Map()) {
    const chosen = scripts.filter(pick);
    if (chosen.length === 0) return;
    scripts = scripts.filter((entry) => !chosen.includes(entry));
    try {
      if (!fs.existsSync(dir)) forgetOldBuilds(versionDir);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const { script, cacheFile, refusedAtRequest } of chosen) {
        const target = name(cacheFile);
        if (refusedAtRequest && target !== cacheFile) fs.rmSync(cacheFile, { force: true });
        // Written whole or not at all: another gatechat may be reading the same file.
        writePrivateFile(target, made.get(script) ?? script.createCachedData());
      }
    } catch {
      // A read-only or full disk: the next start compiles from source again.
    }
  }

  const atRequest = (cacheFile) => cacheFile;
  /** Set when the caches of a run that sends are written at its exit, with V8's flags put back. */
  let restoreAtExit = null;
  /** V8's flags changed: from then on a cache V8 makes is stamped with their hash, which no start has. */
  let flagsChanged = false;

  // V8 stamps a cache with its flags and rejects it under others. gatechat sets flags for streaming at
  // its first request (src/transport/v8-flags.ts, which says which and how to put them back). Where
  // putting them back restores V8's flag hash, the caches are written at exit, so they hold what the
  // answer compiled too (SSE, decoding, output: ~4 ms compiled again at every start otherwise). Else
  // what start-up compiled is saved now: every chunk without a cache made by a run that sent, an
  // accepted exit-time one included (V8 writes what it read back together with what this run compiled).
  process.once('gatechat:before-v8-flags', (change) => {
    flagsChanged = true;
    if (scripts.length === 0) return;
    // Made before trying the flags: where they cannot be put back, V8 stamps anything made after with
    // the changed hash. Thrown away where they can (a first run only: later ones find their cache).
    const made = new Map(scripts.map(({ script }) => [script, script.createCachedData()]));
    const probeData = flagsCanBeRestored(change);
    // A batch (`replaceable`) writes only chunks with no usable cache, as the kind a run that answers one
    // prompt replaces: the first `.v8` of a chunk is kept for good, and a batch that ran first after an
    // install would otherwise decide what every later one-shot finds compiled.
    const kind = change && change.replaceable === true ? { pick: (entry) => !entry.accepted, name: exitFile } : { pick: () => true, name: atRequest };
    if (probeData) restoreAtExit = { change, probeData, kind };
    else save(kind.pick, kind.name, made);
  });
  // At exit, a run that never sent (or loaded a chunk after its first request) saves the chunks that
  // had no usable cache at all.
  process.once('exit', () => {
    if (restoreAtExit) {
      try {
        const v8 = require('node:v8');
        for (const flag of restoreAtExit.change.defaults) v8.setFlagsFromString(flag);
        if (sameFlagHash(restoreAtExit.probeData)) flagsChanged = false;
      } catch {
        // The caches stay as they were: the next run that sends tries again.
      }
      if (!flagsChanged) save(restoreAtExit.kind.pick, restoreAtExit.kind.name);
    }
    // With the flags still changed (a flag set apart from the announced ones), whatever is written now
    // would be rejected by every start, and written again by every run.
    if (!flagsChanged) save((entry) => !entry.accepted, exitFile);
  });

  load(entry);
}

module.exports = { runWithCodeCache, CHUNK_HEAD };
