import { RESERVED_BODY_FIELDS, type Api } from '../protocol/events.js';
import { tryParseJson } from '../protocol/json.js';
import { UsageError } from '../exit-codes.js';
import { normalizeBaseUrl } from '../transport/base-url.js';
import type { ModelEntry } from './model-entries.js';
import { maskProxyPassword, normalizeProxyUrl } from '../transport/proxy-url.js';

// Every parser takes the string a user typed (flag, `config set`, environment variable) and the name
// to blame (`--temperature`, `temperature`, `GATECHAT_MODEL`), so one piece of code validates all
// three and every error names where the bad value came from.

export type Auth = 'bearer' | 'x-api-key';
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** Keys a profile (and the top level) can hold. */
export interface ConfigValues {
  'base-url'?: string;
  'api-key'?: string;
  model?: string;
  api?: Api;
  auth?: Auth;
  temperature?: number;
  'max-tokens'?: number;
  'max-tokens-field'?: MaxTokensField;
  stream?: boolean;
  timeout?: number;
  'connect-timeout'?: number;
  'max-time'?: number;
  retries?: number;
  headers?: Record<string, string>;
  save?: boolean;
  /** A shell command whose trimmed stdout is the key (SPEC §14); run only when a request needs it. */
  'api-key-cmd'?: string;
  proxy?: string;
  /** Tools that run without asking (SPEC §15): comma-separated globs over model-facing names. */
  allow?: string;
  /** SPEC §16: false stops the usage ledger (usage.jsonl). */
  ledger?: boolean;
  /** SPEC §16: USD a day; a request is refused once today's ledger total reached it. */
  'budget-daily'?: number;
  /** SPEC §16: prompt-caching breakpoints on every request (`--cache`). */
  cache?: boolean;
}

/** The top level or one profile: its keys plus per-model entries (SPEC §11). */
export interface ConfigScope extends ConfigValues {
  models?: Record<string, ModelEntry>;
  /** MCP servers by name (SPEC §15), as `config set --mcp <name> <key> <value>` stores them. */
  mcp?: Record<string, Record<string, unknown>>;
}

/** The whole config.json: base settings at the top level, named profiles, the default profile. */
export interface ConfigFile extends ConfigScope {
  'default-profile'?: string;
  profiles?: Record<string, ConfigScope>;
}

export type ConfigKey = keyof ConfigValues;
export type TopLevelKey = ConfigKey | 'default-profile';

/** Quoted, so an empty value or a stray control character is visible in the error. */
const shown = (raw: string) => JSON.stringify(raw);

// Decimal only: Number() would also take "", " ", "0x10" and "Infinity".
const DECIMAL = /^\+?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^\+?\d+$/;
// Node timers overflow above 2^31-1 ms and then fire after 1 ms: a huge timeout would act as none.
const MAX_SECONDS = Math.floor(0x7fffffff / 1000);

export function parseTemperature(raw: string, option: string): number {
  const text = raw.trim();
  const value = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${option}: expected a number ≥ 0, got ${shown(raw)}`);
  }
  return value;
}

/** An amount of US dollars (prices, budgets): a decimal ≥ 0. */
export function parseUsd(raw: string, option: string): number {
  const text = raw.trim();
  const value = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${option}: expected an amount of US dollars ≥ 0 such as 0.50, got ${shown(raw)}`);
  }
  return value;
}

export function parsePositiveInt(raw: string, option: string): number {
  const text = raw.trim();
  const value = Number(text);
  if (!INTEGER.test(text) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${option}: expected a whole number ≥ 1, got ${shown(raw)}`);
  }
  return value;
}

export function parseNonNegativeInt(raw: string, option: string): number {
  const text = raw.trim();
  const value = Number(text);
  if (!INTEGER.test(text) || !Number.isSafeInteger(value)) {
    throw new UsageError(`${option}: expected a whole number ≥ 0, got ${shown(raw)}`);
  }
  return value;
}

export function parseSeconds(raw: string, option: string): number {
  const text = raw.trim();
  const value = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(value) || value <= 0 || value > MAX_SECONDS) {
    throw new UsageError(`${option}: expected a number of seconds > 0 (at most ${MAX_SECONDS}), got ${shown(raw)}`);
  }
  return value;
}

function oneOf<T extends string>(choices: readonly T[]) {
  return (raw: string, option: string): T => {
    const text = raw.trim().toLowerCase();
    const found = choices.find((choice) => choice === text);
    if (!found) throw new UsageError(`${option}: expected ${choices.join(' or ')}, got ${shown(raw)}`);
    return found;
  };
}

export const parseApi: (raw: string, option: string) => Api = oneOf<Api>(['chat', 'messages']);
export const parseAuth: (raw: string, option: string) => Auth = oneOf<Auth>(['bearer', 'x-api-key']);
export const parseMaxTokensField: (raw: string, option: string) => MaxTokensField = oneOf<MaxTokensField>([
  'max_tokens',
  'max_completion_tokens',
]);

const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];

export function parseBoolean(raw: string, option: string): boolean {
  const text = raw.trim().toLowerCase();
  if (TRUE_WORDS.includes(text)) return true;
  if (FALSE_WORDS.includes(text)) return false;
  throw new UsageError(`${option}: expected true or false (yes/no, on/off, 1/0), got ${shown(raw)}`);
}

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// CR/LF/NUL would split or truncate the request; other controls are rejected by undici anyway.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * SPEC §20: an HTTP header carries Latin-1 only (undici refuses anything else as an "invalid header").
 * A key or header value beyond it is refused where it is given, never at send time, where it was retried.
 */
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

export function beyondLatin1(text: string): boolean {
  return BEYOND_LATIN1.test(text);
}

const CANNOT_BE_SENT = 'characters outside Latin-1, which an HTTP header cannot carry (value not shown)';

/** `"Name: value"` → [name, value]. */
export function parseHeader(raw: string, option: string): [string, string] {
  const colon = raw.indexOf(':');
  if (colon < 0) throw new UsageError(`${option}: expected "Name: value", got ${shown(raw)}`);
  const name = raw.slice(0, colon).trim();
  const value = raw.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) throw new UsageError(`${option}: not a valid header name: ${shown(name)}`);
  if (!value) throw new UsageError(`${option}: header ${name} has an empty value`);
  if (CONTROL.test(value)) throw new UsageError(`${option}: header ${name} contains control characters`);
  if (beyondLatin1(value)) throw new UsageError(`${option}: header ${name} has ${CANNOT_BE_SENT}`);
  return [name, value];
}

/**
 * `-o key=value`: the value is JSON when it parses (`top_p=0.9`, `stop=["\n"]`, `x=true`), else the
 * string as typed (`reasoning_effort=high`). Fields gatechat builds itself are refused.
 */
export function parseBodyOption(raw: string, option: string): [string, unknown] {
  const equals = raw.indexOf('=');
  const key = equals < 0 ? '' : raw.slice(0, equals).trim();
  if (!key) throw new UsageError(`${option}: expected key=value, got ${shown(raw)}`);
  checkBodyField(key, option);
  const text = raw.slice(equals + 1);
  const parsed = tryParseJson(text);
  return [key, parsed.ok ? parsed.value : text];
}

const RESERVED_FIELD_HINTS: Record<string, string> = {
  model: 'use -m',
  messages: 'they come from the prompt and the conversation',
  stream: 'use --stream or --no-stream',
};

/** A field name that may go into the request body as an extra (`-o`, per-model `options`). */
export function checkBodyField(key: string, option: string): void {
  if (RESERVED_BODY_FIELDS.includes(key)) {
    throw new UsageError(`${option}: ${key} is built by gatechat and cannot be an extra body field (${RESERVED_FIELD_HINTS[key]})`);
  }
  if (key === '__proto__') throw new UsageError(`${option}: not a valid body field: ${shown(key)}`);
}

export function parseBaseUrl(raw: string, option: string): string {
  return normalizeBaseUrl(raw, option);
}

// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;

export function parseModel(raw: string, option: string): string {
  const text = raw.trim();
  if (!text) throw new UsageError(`${option}: expected a model id, got an empty value`);
  if (WHITESPACE_OR_CONTROL.test(text)) {
    throw new UsageError(`${option}: a model id has no spaces or control characters, got ${shown(raw)}`);
  }
  return text;
}

/** Never echoes the value: whatever was typed may be (most of) a real key. */
export function parseApiKey(raw: string, option: string): string {
  const text = raw.trim();
  if (!text) throw new UsageError(`${option}: the API key is empty`);
  if (WHITESPACE_OR_CONTROL.test(text)) {
    throw new UsageError(`${option}: the API key contains spaces or control characters (value not shown)`);
  }
  if (beyondLatin1(text)) throw new UsageError(`${option}: the API key has ${CANNOT_BE_SENT}`);
  return text;
}

/** The command itself is shown in `config list`; only its output is secret. */
export function parseApiKeyCommand(raw: string, option: string): string {
  const text = raw.trim();
  if (!text) throw new UsageError(`${option}: expected a shell command that prints the key, e.g. "pass show gateway"`);
  if (CONTROL.test(text)) throw new UsageError(`${option}: the command contains control characters`);
  return text;
}

export function parseProxyUrl(raw: string, option: string): string {
  return normalizeProxyUrl(raw, option);
}

/** `fs__read_*, word_count` → `fs__read_*,word_count`: at least one pattern, none empty. */
export function parseAllowList(raw: string, option: string): string {
  const patterns = raw.split(',').map((pattern) => pattern.trim());
  if (patterns.some((pattern) => pattern === '' || /\s/.test(pattern))) {
    throw new UsageError(`${option}: expected tool names or globs separated by commas (fs__read_*,word_count), got ${shown(raw)}`);
  }
  return patterns.join(',');
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Profile names become JSON object keys: no `__proto__`, nothing a shell would mangle. */
export function parseProfileName(raw: string, option: string): string {
  const text = raw.trim();
  if (!PROFILE_NAME.test(text) || text === '__proto__') {
    throw new UsageError(`${option}: a profile name is letters, digits, ".", "_" or "-" (up to 64), got ${shown(raw)}`);
  }
  return text;
}

export interface KeySpec {
  key: TopLevelKey;
  description: string;
  /** Masked in `config get` / `config list` unless --show-secrets. */
  secret?: boolean;
  /** Only at the top level of the file (not inside a profile). */
  topLevelOnly?: boolean;
  /** The typed string → the stored value. `headers` returns one [name, value] pair, merged by the caller. */
  parse(raw: string, option: string): unknown;
}

export const CONFIG_KEYS: readonly KeySpec[] = [
  { key: 'base-url', description: 'gateway base URL (an empty path gets /v1)', parse: parseBaseUrl },
  { key: 'api-key', description: 'API key (no value: read from stdin or a hidden prompt)', secret: true, parse: parseApiKey },
  { key: 'model', description: 'model id', parse: parseModel },
  { key: 'api', description: 'chat or messages', parse: parseApi },
  { key: 'auth', description: 'bearer or x-api-key', parse: parseAuth },
  { key: 'temperature', description: 'number ≥ 0', parse: parseTemperature },
  { key: 'max-tokens', description: 'whole number ≥ 1', parse: parsePositiveInt },
  { key: 'max-tokens-field', description: 'max_tokens or max_completion_tokens', parse: parseMaxTokensField },
  { key: 'stream', description: 'true or false', parse: parseBoolean },
  { key: 'timeout', description: 'idle / response-header timeout in seconds', parse: parseSeconds },
  { key: 'connect-timeout', description: 'connect timeout in seconds', parse: parseSeconds },
  { key: 'max-time', description: 'give up on a request after this many seconds, retries included (default: none)', parse: parseSeconds },
  { key: 'retries', description: 'retries before the first answer byte', parse: parseNonNegativeInt },
  { key: 'headers', description: 'extra header "Name: value" (set adds one; unset headers [Name])', parse: parseHeader },
  { key: 'save', description: 'record conversations: true or false', parse: parseBoolean },
  { key: 'api-key-cmd', description: 'shell command printing the API key (e.g. "pass show gateway"), run when a request needs it', parse: parseApiKeyCommand },
  { key: 'proxy', description: 'HTTP(S) proxy URL (no scheme means http://); default: HTTPS_PROXY / HTTP_PROXY / NO_PROXY', parse: parseProxyUrl },
  { key: 'allow', description: 'tools that run without asking: comma-separated globs over tool names (fs__read_*,word_count)', parse: parseAllowList },
  { key: 'ledger', description: 'append one line per request to usage.jsonl in the data dir: true or false', parse: parseBoolean },
  { key: 'budget-daily', description: "USD a day: requests are refused (exit 11) once today's ledger total reaches it", parse: parseUsd },
  { key: 'cache', description: 'prompt caching, as --cache: cache_control breakpoints (Messages; anthropic/ and claude models on chat): true or false', parse: parseBoolean },
  { key: 'default-profile', description: 'profile used when none is named', topLevelOnly: true, parse: parseProfileName },
];

export const KEY_NAMES: readonly TopLevelKey[] = CONFIG_KEYS.map((spec) => spec.key);

export function keySpec(key: string): KeySpec | undefined {
  return CONFIG_KEYS.find((spec) => spec.key === key);
}

/** For errors: `unknown config key "x" (valid: base-url, api-key, …)`. */
export function unknownKeyError(key: string): UsageError {
  return new UsageError(`unknown config key ${shown(key)} (valid keys: ${KEY_NAMES.join(', ')})`);
}

/**
 * Checks a value read from config.json (hand edits happen): numbers and booleans are re-parsed
 * through the same parser as their string form, so a file can never hold what `config set` refuses.
 */
export function checkStoredValue(key: TopLevelKey, value: unknown, label: string): unknown {
  const spec = keySpec(key)!;
  if (key === 'headers') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError(`${label}: expected an object {"Name": "value"}`);
    }
    const headers: Record<string, string> = {};
    for (const [name, headerValue] of Object.entries(value)) {
      if (typeof headerValue !== 'string') throw new UsageError(`${label}: header ${shown(name)} must be a string`);
      const [parsedName, parsedValue] = parseHeader(`${name}: ${headerValue}`, label);
      headers[parsedName] = parsedValue;
    }
    return headers;
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new UsageError(`${label}: expected ${spec.description}, got ${typeof value === 'object' ? 'an object' : typeof value}`);
  }
  return spec.parse(String(value), label);
}

/** `sk-…1234`: enough to tell two keys apart, never enough to use one. */
export function maskSecret(value: string): string {
  if (value.length <= 8) return '…';
  const prefix = /^[A-Za-z]{1,6}-/.exec(value)?.[0] ?? '';
  return `${prefix}…${value.slice(-4)}`;
}

// Headers such as Authorization or X-Api-Key carry credentials just like api-key does; so do
// environment variables such as GITHUB_TOKEN or DB_PASSWORD given to an MCP server.
const SECRET_NAME = /authorization|api[-_]?key|token|secret|cookie|password|credential/i;

/** A name → value record with the values of credential-like names masked. */
export function maskSecretEntries(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([name, v]) => [name, SECRET_NAME.test(name) && typeof v === 'string' ? maskSecret(v) : v]));
}

/** A stored value as `config get` / `config list` print it: secrets masked unless asked for. */
export function displayValue(key: TopLevelKey, value: unknown, showSecrets: boolean): unknown {
  if (showSecrets) return value;
  if (keySpec(key)?.secret && typeof value === 'string') return maskSecret(value);
  if (key === 'proxy' && typeof value === 'string') return maskProxyPassword(value);
  if (key === 'headers' && typeof value === 'object' && value !== null) return maskSecretEntries(value as Record<string, unknown>);
  return value;
}
