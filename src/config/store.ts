import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../exit-codes.js';
import { lockFile } from '../storage/file-lock.js';
import { ensurePrivateDir } from '../storage/own-files.js';
import { storageError } from '../storage/storage-error.js';
import type { ConfigFile, ConfigScope, TopLevelKey } from './keys.js';
import type { ModelEntryKey } from './model-entries.js';
import { homeDirectory } from './home.js';

// The only module that imports `conf`, and only for writing. Reading is a plain readFileSync +
// JSON.parse: importing conf (ajv, atomically, semver, …) costs more than starting node itself,
// and every one-shot run reads the config. conf's file is plain JSON, so both see the same data.
//
// Every change is a read-modify-write of the whole file, so it holds config.json.lock (storage/
// file-lock.ts) from the read to conf's write: eight `config set` at once lose none of the eight.
// conf still writes the file (SPEC §3): atomically's temp file and rename, under that lock.

/** How long a change waits for another process's change to the same file (each takes milliseconds). */
const LOCK_WAIT_MS = 10_000;

export interface ConfigStore {
  /** Absolute path of config.json (it may not exist yet). */
  readonly path: string;
  /** The whole parsed file; `{}` when there is none. Throws UsageError when it is corrupt. */
  snapshot(): ConfigFile;
  /** The stored value (top level, or inside `profile`), undefined when unset. */
  get(key: TopLevelKey, profile?: string): unknown;
  /** Stores an already-validated value. Refuses to touch a corrupt file. */
  set(key: TopLevelKey, value: unknown, profile?: string): Promise<void>;
  /** Removes a key; resolves false when there was nothing to remove. */
  unset(key: TopLevelKey, profile?: string): Promise<boolean>;
  /** Stores one already-validated key of a per-model entry (SPEC §11). */
  setModelKey(name: string, key: ModelEntryKey, value: unknown, profile?: string): Promise<void>;
  /** Removes one key of an entry, or (no key) the whole entry; false when there was nothing to remove. */
  unsetModelKey(name: string, key: ModelEntryKey | undefined, profile?: string): Promise<boolean>;
  /**
   * Read-modify-write of one MCP server's object under the config lock: `change` gets what is stored
   * (undefined: nothing) and returns the new object, undefined to remove it, or null to leave the file alone.
   */
  updateMcpServer(name: string, profile: string | undefined, change: (stored: Record<string, unknown> | undefined) => Record<string, unknown> | undefined | null): Promise<boolean>;
}

/** The top level, or one profile (created empty when missing). */
function scopeOf(file: ConfigFile, profile: string | undefined): ConfigScope {
  return profile === undefined ? { ...file } : { ...file.profiles?.[profile] };
}

function withScope(file: ConfigFile, profile: string | undefined, scope: ConfigScope): ConfigFile {
  return profile === undefined ? { ...file, ...scope } : { ...file, profiles: { ...file.profiles, [profile]: scope } };
}

/** Own keys only: a model id such as `constructor` must not find Object.prototype's. */
function ownEntry(scope: ConfigScope, name: string): Record<string, unknown> | undefined {
  const models = scope.models as Record<string, Record<string, unknown>> | undefined;
  return models && Object.prototype.hasOwnProperty.call(models, name) ? models[name] : undefined;
}

/** `GATECHAT_CONFIG_DIR`, else what conf would pick (env-paths with no suffix). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATECHAT_CONFIG_DIR) return env.GATECHAT_CONFIG_DIR;
  const home = homeDirectory();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'gatechat');
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'gatechat', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'gatechat');
}

export function openConfigStore(env: NodeJS.ProcessEnv = process.env): ConfigStore {
  const dir = configDir(env);
  const path = join(dir, 'config.json');

  const snapshot = (): ConfigFile => readConfigFile(path);

  /**
   * Applies `change` to the file as it is after conf has loaded (so two writes in one process, e.g.
   * learned facts from a compare run, never lose each other's change). `change` returns null for
   * "nothing to do".
   */
  const write = async (change: (file: ConfigFile) => ConfigFile | null): Promise<boolean> => {
    snapshot(); // a corrupt file is reported before conf is even loaded
    const { default: Conf } = await import('conf');
    try {
      ensurePrivateDir(dir);
      const lock = lockFile(path, { waitMs: LOCK_WAIT_MS, what: `the config file ${path}`, hint: 'try again once it is done' });
      try {
        // Read again under the lock: what another process wrote meanwhile is kept.
        const next = change(snapshot());
        if (next === null) return false;
        writeWithConf(Conf, dir, path, next);
        return true;
      } finally {
        lock.release();
      }
    } catch (error) {
      throw storageError(error, 'cannot save the configuration to', path);
    }
  };

  return {
    path,
    snapshot,
    get(key, profile) {
      const file = snapshot();
      const scope = profile === undefined ? file : file.profiles?.[profile];
      return scope ? (scope as Record<string, unknown>)[key] : undefined;
    },
    async set(key, value, profile) {
      await write((file) => withScope(file, profile, { ...scopeOf(file, profile), [key]: value }));
    },
    unset(key, profile) {
      return write((file) => {
        if (profile !== undefined && !file.profiles?.[profile]) return null;
        const scope = scopeOf(file, profile) as Record<string, unknown>;
        if (!(key in scope)) return null;
        delete scope[key];
        if (profile === undefined) return scope as ConfigFile;
        // An emptied profile stays (as {}), so default-profile never silently dangles.
        return withScope(file, profile, scope);
      });
    },
    async setModelKey(name, key, value, profile) {
      await write((file) => {
        const scope = scopeOf(file, profile);
        const models = { ...scope.models, [name]: { ...ownEntry(scope, name), [key]: value } };
        return withScope(file, profile, { ...scope, models });
      });
    },
    updateMcpServer(name, profile, change) {
      return write((file) => {
        const scope = scopeOf(file, profile);
        const next = change(scope.mcp?.[name]);
        if (next === null) return null;
        const mcp: Record<string, Record<string, unknown>> = { ...scope.mcp };
        if (next === undefined) delete mcp[name];
        else mcp[name] = next;
        const updated: ConfigScope = { ...scope, mcp };
        if (Object.keys(mcp).length === 0) delete updated.mcp;
        if (profile === undefined) {
          const top: ConfigFile = { ...file, ...updated };
          if (!updated.mcp) delete top.mcp;
          return top;
        }
        return withScope(file, profile, updated);
      });
    },
    unsetModelKey(name, key, profile) {
      return write((file) => {
        if (profile !== undefined && !file.profiles?.[profile]) return null;
        const scope = scopeOf(file, profile);
        const entry = ownEntry(scope, name);
        if (!entry || (key !== undefined && !(key in entry))) return null;
        const models: Record<string, unknown> = { ...scope.models };
        const rest = { ...entry };
        if (key !== undefined) delete rest[key];
        // An entry with nothing left goes, and so does an empty `models`.
        if (key === undefined || Object.keys(rest).length === 0) delete models[name];
        else models[name] = rest;
        const next: ConfigScope = { ...scope, models: models as ConfigScope['models'] };
        if (Object.keys(models).length === 0) delete next.models;
        if (profile === undefined) {
          const top: ConfigFile = { ...file, ...next };
          if (!next.models) delete top.models;
          return top;
        }
        return withScope(file, profile, next);
      });
    },
  };
}

function writeWithConf(Conf: typeof import('conf').default, dir: string, path: string, next: ConfigFile): void {
  try {
    const conf = new Conf<Record<string, unknown>>({
      projectName: 'gatechat',
      projectSuffix: '',
      configFileMode: 0o600,
      // Always explicit, so conf writes exactly the file configDir() reads.
      cwd: dir,
      // Never replace a file the user can still repair.
      clearInvalidConfig: false,
      // Profile names may contain dots; the store is always written whole.
      accessPropertiesByDotNotation: false,
    });
    conf.store = next as Record<string, unknown>;
  } catch (error) {
    // The file changed between our read and conf's (which re-reads it): same verdict, same message.
    if (error instanceof SyntaxError) throw corruptError(path);
    throw error;
  }
  // conf passes the mode to atomically, which chmods the temp file; kept as a guard for
  // platforms/fallback paths (SNAP, EXDEV) where a plain writeFileSync keeps an older mode.
  if ((statSync(path).mode & 0o777) !== 0o600 && process.platform !== 'win32') chmodSync(path, 0o600);
}

function corruptError(path: string): UsageError {
  return new UsageError(`config file is not valid JSON: ${path} (fix or remove it)`);
}

/** Reads and shape-checks config.json; values are checked later, where they are used. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new UsageError(`cannot read config file ${path}: ${code ?? (error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corruptError(path);
  }
  if (!isPlainObject(value)) throw new UsageError(`config file is not a JSON object: ${path} (fix or remove it)`);
  const profiles = value.profiles;
  if (profiles !== undefined) {
    if (!isPlainObject(profiles) || !Object.values(profiles).every(isPlainObject)) {
      throw new UsageError(`config file ${path}: "profiles" must be an object of objects (fix or remove it)`);
    }
  }
  return value as ConfigFile;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

