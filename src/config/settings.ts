import type { Prices } from '../protocol/cost.js';
import type { Api } from '../protocol/events.js';
import { UsageError } from '../exit-codes.js';
import {
  checkStoredValue,
  parseApiKey,
  parseBaseUrl,
  parseModel,
  parseProfileName,
  type Auth,
  type ConfigFile,
  type ConfigKey,
  type ConfigValues,
  type MaxTokensField,
} from './keys.js';
import { resolveModelEntry, type EntrySetting, type ResolvedModel } from './model-entries.js';

// Pure: flags, environment and the parsed file in, one validated Settings out. No I/O, so the
// whole precedence matrix is tested without touching disk.

export type SettingSource = 'flag' | 'env' | 'model' | 'profile' | 'config' | 'default';

/** Flags after CLI validation; only what the user typed is set. */
export interface SettingsFlags {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  api?: Api;
  auth?: Auth;
  temperature?: number;
  maxTokens?: number;
  maxTokensField?: MaxTokensField;
  stream?: boolean;
  timeoutS?: number;
  connectTimeoutS?: number;
  /** --max-time: the bound on a whole request (SPEC §20); no default. */
  maxTimeS?: number;
  retries?: number;
  headers?: Record<string, string>;
  save?: boolean;
  proxy?: string;
  /** No CLI flag; here so every field resolves the same way. */
  apiKeyCmd?: string;
  /** No CLI flags either (SPEC §16 config keys). */
  ledger?: boolean;
  budgetDaily?: number;
  /** --cache / --no-cache (SPEC §16). */
  cache?: boolean;
  profile?: string;
  /** The system prompt is per invocation (or per model entry), not a profile setting. */
  system?: string;
  /** Extra request-body fields (`-o`); a model entry's `options` fill in the keys not given. */
  extraBody?: Record<string, unknown>;
  /** --fallback: replaces the model entry's `fallback` for this run (SPEC §17). */
  fallback?: string[];
}

export interface Settings {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  api: Api;
  auth: Auth;
  temperature?: number;
  maxTokens?: number;
  maxTokensField: MaxTokensField;
  stream: boolean;
  timeoutS: number;
  connectTimeoutS: number;
  /** Unset: no bound on a whole request (SPEC §20). */
  maxTimeS?: number;
  retries: number;
  headers: Record<string, string>;
  save: boolean;
  system?: string;
  extraBody?: Record<string, unknown>;
  /** The model entry's context window (SPEC §17), if it has one. */
  context?: number;
  /** The real ids to try, in order, when the model fails before answering (SPEC §17). */
  fallback?: string[];
  /** The name the user asked for when it differs from `model` (an alias, SPEC §11). */
  alias?: string;
  /** Set only when it is where the key comes from (SPEC §14): run it with `resolveApiKey()`. */
  apiKeyCmd?: string;
  /** An explicit proxy (`--proxy`, the `proxy` key); otherwise the transport reads HTTPS_PROXY & co. */
  proxy?: string;
  /** The profile in effect, if any. */
  profile?: string;
  /** SPEC §16: the usage ledger is written (config `ledger`). */
  ledger: boolean;
  /** SPEC §16: config `budget-daily` in USD. */
  budgetDaily?: number;
  /** SPEC §16: prompt-caching breakpoints (`--cache`, config `cache`). */
  cache: boolean;
  /** SPEC §16: the model entry's prices (price-in and price-out both set). */
  prices?: Prices;
  /** Where each value came from (for --verbose and `config list`). */
  sources: Partial<Record<SettingName, SettingSource>>;
}

export type SettingName = Exclude<keyof Settings, 'sources'>;

export const DEFAULTS = {
  api: 'chat',
  auth: 'bearer',
  maxTokensField: 'max_tokens',
  stream: true,
  timeoutS: 120,
  connectTimeoutS: 10,
  retries: 2,
  save: true,
  ledger: true,
  cache: false,
} as const satisfies Partial<Settings>;

/** Settings field ↔ config key, for everything except headers (merged, not overridden). */
const FIELD_KEYS = {
  baseUrl: 'base-url',
  apiKey: 'api-key',
  model: 'model',
  api: 'api',
  auth: 'auth',
  temperature: 'temperature',
  maxTokens: 'max-tokens',
  maxTokensField: 'max-tokens-field',
  stream: 'stream',
  timeoutS: 'timeout',
  connectTimeoutS: 'connect-timeout',
  maxTimeS: 'max-time',
  retries: 'retries',
  save: 'save',
  apiKeyCmd: 'api-key-cmd',
  proxy: 'proxy',
  ledger: 'ledger',
  budgetDaily: 'budget-daily',
  cache: 'cache',
} as const satisfies Partial<Record<SettingName, ConfigKey>>;

type Field = keyof typeof FIELD_KEYS;

/** Fields a model entry can set, by entry key (SPEC §11: after flag and env, before profile). */
const ENTRY_FIELDS = {
  api: 'api',
  temperature: 'temperature',
  maxTokens: 'max-tokens',
  maxTokensField: 'max-tokens-field',
} as const satisfies Partial<Record<Field, EntrySetting>>;

/** Only these three come from the environment (SPEC §3); each validated with the flag's parser. */
const ENV_VARS = {
  baseUrl: ['GATECHAT_BASE_URL', parseBaseUrl],
  apiKey: ['GATECHAT_API_KEY', parseApiKey],
  model: ['GATECHAT_MODEL', parseModel],
} as const;

export interface ResolveInput {
  flags: SettingsFlags;
  env: Record<string, string | undefined>;
  file: ConfigFile;
  /** Overrides flags.profile (for callers that carry it separately). */
  profile?: string;
}

export function resolveSettings({ flags, env, file, profile: explicitProfile }: ResolveInput): Settings {
  const sources: Settings['sources'] = {};
  const profile = selectProfile(explicitProfile ?? flags.profile, env, file, sources);
  const profileValues: ConfigValues | undefined = profile === undefined ? undefined : file.profiles?.[profile];

  const resolved: Record<string, unknown> = {};
  let entry: ResolvedModel | undefined;
  for (const field of Object.keys(FIELD_KEYS) as Field[]) {
    const key = FIELD_KEYS[field];
    const entryKey = field in ENTRY_FIELDS ? ENTRY_FIELDS[field as keyof typeof ENTRY_FIELDS] : undefined;
    const fromEntry = () => {
      const value = entryKey === undefined ? undefined : entry?.get(entryKey);
      return value === undefined ? undefined : { value, source: 'model' as const };
    };
    const found = pick(field, key, flags, env, undefined, undefined, {}) ?? fromEntry() ?? pick(field, key, {}, {}, profile, profileValues, file);
    if (field === 'model' && found) {
      // `model` comes first in FIELD_KEYS, so every later field sees its entry.
      entry = resolveModelEntry(file, profile, found.value as string);
      if (entry.id !== entry.name) resolved.alias = entry.name;
      found.value = entry.id;
    }
    if (found) {
      resolved[field] = found.value;
      sources[field] = found.source;
    } else if (field in DEFAULTS) {
      resolved[field] = DEFAULTS[field as keyof typeof DEFAULTS];
      sources[field] = 'default';
    }
  }

  preferKeyCommand(resolved, sources);

  // Headers accumulate: top level, then profile, then -H on top (a later layer wins per name).
  const headers: Record<string, string> = {};
  const layers: Array<[Record<string, string> | undefined, SettingSource]> = [
    [storedHeaders(file.headers, 'config headers'), 'config'],
    [profileValues && storedHeaders(profileValues.headers, `config headers (profile ${profile})`), 'profile'],
    [flags.headers, 'flag'],
  ];
  sources.headers = 'default';
  for (const [layer, source] of layers) {
    if (layer && Object.keys(layer).length > 0) {
      mergeHeaders(headers, layer);
      sources.headers = source;
    }
  }

  const system = flags.system !== undefined ? flags.system : entry?.get('system');
  if (system !== undefined) sources.system = flags.system !== undefined ? 'flag' : 'model';
  // -o wins per field over the entry's options.
  const options = entry?.get('options');
  const extraBody = options || flags.extraBody ? { ...options, ...flags.extraBody } : undefined;

  const context = entry?.get('context');
  // Each fallback resolves like -m does: an alias names its real id (one level).
  const fallback = (flags.fallback ?? entry?.get('fallback'))?.map((name) => resolveModelEntry(file, profile, name).id);
  const prices = entry ? entryPrices(entry) : undefined;
  return {
    ...(resolved as Omit<Settings, 'headers' | 'sources' | 'profile'>),
    headers,
    profile,
    system,
    extraBody,
    ...(context !== undefined ? { context } : {}),
    ...(fallback?.length ? { fallback } : {}),
    ...(prices ? { prices } : {}),
    sources,
  };
}

/** The entry's prices (SPEC §16), when it gives both input and output; the cache prices are optional. */
function entryPrices(entry: ResolvedModel): Prices | undefined {
  const input = entry.get('price-in');
  const output = entry.get('price-out');
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = entry.get('price-cache-read');
  const cacheWrite = entry.get('price-cache-write');
  return { in: input, out: output, ...(cacheRead !== undefined ? { cacheRead } : {}), ...(cacheWrite !== undefined ? { cacheWrite } : {}) };
}

/**
 * SPEC §14: GATECHAT_API_KEY → api-key-cmd → api-key. Within one layer the command wins over a stored
 * key; a profile's api-key still beats a top-level command (the profile is another gateway).
 */
function preferKeyCommand(resolved: Record<string, unknown>, sources: Settings['sources']): void {
  if (resolved.apiKeyCmd === undefined) return;
  const keyLayer = sources.apiKey;
  const keyWins = keyLayer === 'flag' || keyLayer === 'env' || (keyLayer === 'profile' && sources.apiKeyCmd === 'config');
  const loser = keyWins ? 'apiKeyCmd' : 'apiKey';
  delete resolved[loser];
  delete sources[loser];
}

/** The profile in effect: --profile, else GATECHAT_PROFILE, else the config's default-profile (checked to exist). */
export function selectProfile(
  named: string | undefined,
  env: Record<string, string | undefined>,
  file: ConfigFile,
  sources: Settings['sources'] = {},
): string | undefined {
  const known = Object.keys(file.profiles ?? {});
  let name: string | undefined;
  let label: string;
  if (named !== undefined) {
    [name, label, sources.profile] = [parseProfileName(named, '--profile'), '--profile', 'flag'];
  } else if (env.GATECHAT_PROFILE) {
    [name, label, sources.profile] = [parseProfileName(env.GATECHAT_PROFILE, 'GATECHAT_PROFILE'), 'GATECHAT_PROFILE', 'env'];
  } else if (file['default-profile'] !== undefined) {
    const stored = checkStoredValue('default-profile', file['default-profile'], 'config default-profile') as string;
    [name, label, sources.profile] = [stored, 'config default-profile', 'config'];
  } else {
    return undefined;
  }
  if (!known.includes(name)) {
    // A missing profile would silently send to the wrong gateway: always an error, even from default-profile.
    throw new UsageError(
      `${label}: no profile named ${JSON.stringify(name)} (known profiles: ${known.length ? known.join(', ') : 'none'}; ` +
        `create one with: gatechat config set --profile ${name} base-url …)`,
    );
  }
  return name;
}

function pick(
  field: Field,
  key: ConfigKey,
  flags: SettingsFlags,
  env: Record<string, string | undefined>,
  profile: string | undefined,
  profileValues: ConfigValues | undefined,
  file: ConfigFile,
): { value: unknown; source: SettingSource } | undefined {
  if (flags[field] !== undefined) return { value: flags[field], source: 'flag' };
  if (field in ENV_VARS) {
    const [name, parse] = ENV_VARS[field as keyof typeof ENV_VARS];
    // An empty variable counts as unset, as `VAR= gatechat …` is the usual way to clear one.
    const raw = env[name];
    if (raw) return { value: parse(raw, name), source: 'env' };
  }
  // Stored values are checked only when used, so a flag can still override a broken entry.
  if (profileValues?.[key] !== undefined) {
    return { value: checkStoredValue(key, profileValues[key], `config ${key} (profile ${profile})`), source: 'profile' };
  }
  if (file[key] !== undefined) return { value: checkStoredValue(key, file[key], `config ${key}`), source: 'config' };
  return undefined;
}

function storedHeaders(value: unknown, label: string): Record<string, string> | undefined {
  return value === undefined ? undefined : (checkStoredValue('headers', value, label) as Record<string, string>);
}

/** Header names are case-insensitive: `-H x-team: b` replaces a stored `X-Team: a`. */
function mergeHeaders(into: Record<string, string>, layer: Record<string, string>): void {
  for (const [name, value] of Object.entries(layer)) {
    for (const existing of Object.keys(into)) {
      if (existing.toLowerCase() === name.toLowerCase()) delete into[existing];
    }
    into[name] = value;
  }
}

/** Exit 2 with the exact command to run, before anything is sent (SPEC §3). */
export function requireConnection(settings: Settings): Settings & { baseUrl: string; model: string } {
  if (!settings.baseUrl) {
    throw new UsageError('no base URL configured: run: gatechat config set base-url https://your-gateway/v1');
  }
  if (!settings.model) {
    throw new UsageError('no model configured: run: gatechat config set model <id> (or pass -m)');
  }
  return settings as Settings & { baseUrl: string; model: string };
}

/** The defaults by config key (`timeout` → 120), for `config list`. */
export const KEY_DEFAULTS: Partial<Record<ConfigKey, unknown>> = Object.fromEntries(
  Object.entries(FIELD_KEYS)
    .filter(([field]) => field in DEFAULTS)
    .map(([field, key]) => [key, DEFAULTS[field as keyof typeof DEFAULTS]]),
);
