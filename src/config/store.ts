import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../exit-codes.js';
import type { ConfigFile, ConfigKey, TopLevelKey } from './keys.js';

// The only module that imports `conf`, and only for writing. Reading is a plain readFileSync +
// JSON.parse: importing conf (ajv, atomically, semver, …) costs more than starting node itself,
// and every one-shot run reads the config. conf's file is plain JSON, so both see the same data.

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
}

/** `GATECHAT_CONFIG_DIR`, else what conf would pick (env-paths with no suffix). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATECHAT_CONFIG_DIR) return env.GATECHAT_CONFIG_DIR;
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'gatechat');
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'gatechat', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'gatechat');
}

export function openConfigStore(env: NodeJS.ProcessEnv = process.env): ConfigStore {
  const dir = configDir(env);
  const path = join(dir, 'config.json');

  const snapshot = (): ConfigFile => readConfigFile(path);

  const write = async (next: ConfigFile): Promise<void> => {
    ensurePrivateDir(dir);
    const { default: Conf } = await import('conf');
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
      const file = snapshot();
      if (profile === undefined) {
        await write({ ...file, [key]: value });
      } else {
        const profiles = { ...file.profiles, [profile]: { ...file.profiles?.[profile], [key as ConfigKey]: value } };
        await write({ ...file, profiles });
      }
    },
    async unset(key, profile) {
      const file = snapshot();
      if (profile === undefined) {
        if (!(key in file)) return false;
        const next: Record<string, unknown> = { ...file };
        delete next[key];
        await write(next);
        return true;
      }
      const scope = file.profiles?.[profile];
      if (!scope || !(key in scope)) return false;
      const nextScope: Record<string, unknown> = { ...scope };
      delete nextScope[key];
      // An emptied profile stays (as {}), so default-profile never silently dangles.
      await write({ ...file, profiles: { ...file.profiles, [profile]: nextScope } });
      return true;
    },
  };
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

/** 0700 for a directory we create; an existing directory keeps the mode its owner chose. */
function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined && process.platform !== 'win32') chmodSync(dir, 0o700);
}
