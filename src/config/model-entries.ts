import type { Api } from '../protocol/events.js';
import { UsageError } from '../exit-codes.js';
import {
  checkBodyField,
  parseApi,
  parseMaxTokensField,
  parseModel,
  parsePositiveInt,
  parseTemperature,
  parseUsd,
  type ConfigFile,
  type ConfigScope,
  type MaxTokensField,
} from './keys.js';

// Per-model entries (SPEC §11): `config set --model <name> <key> <value>`. A name with a `model`
// key is an alias for that id; any name (alias or real id) can carry the settings below, which
// beat the profile and the top level but lose to flags and the environment.

export interface ModelEntry {
  /** The real id: makes the entry's name an alias. */
  model?: string;
  api?: Api;
  temperature?: number;
  'max-tokens'?: number;
  'max-tokens-field'?: MaxTokensField;
  system?: string;
  /** Extra request-body fields, merged like `-o`. */
  options?: Record<string, unknown>;
  /** The context window in tokens (SPEC §17): set by hand, or learned from a context-length 400. */
  context?: number;
  /** Models (ids or aliases) that get the request when this one fails before answering (SPEC §17). */
  fallback?: string[];
  /** SPEC §16: USD per million tokens, for the cost when the gateway sends no figure. */
  'price-in'?: number;
  'price-out'?: number;
  'price-cache-read'?: number;
  'price-cache-write'?: number;
}

export type ModelEntryKey = keyof ModelEntry;

interface EntryKeySpec {
  key: ModelEntryKey;
  description: string;
  parse(raw: string, option: string): unknown;
}

const shown = (raw: string) => JSON.stringify(raw);

function parseSystem(raw: string, option: string): string {
  if (!raw.trim()) throw new UsageError(`${option}: expected a system prompt, got an empty value (to remove it: config unset --model <name> system)`);
  return raw;
}

/** `options`: a JSON object of extra body fields, e.g. '{"top_p":0.9,"reasoning_effort":"high"}'. */
export function parseBodyFields(raw: string, option: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`${option}: expected a JSON object such as '{"top_p":0.9}', got ${shown(raw)}`);
  }
  return checkBodyFields(value, option);
}

function checkBodyFields(value: unknown, option: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${option}: expected a JSON object of extra request fields`);
  }
  for (const key of Object.keys(value)) checkBodyField(key, option);
  return value as Record<string, unknown>;
}

export const MODEL_ENTRY_KEYS: readonly EntryKeySpec[] = [
  { key: 'model', description: 'the real model id (makes the name an alias)', parse: parseModel },
  { key: 'api', description: 'chat or messages', parse: parseApi },
  { key: 'temperature', description: 'number ≥ 0', parse: parseTemperature },
  { key: 'max-tokens', description: 'whole number ≥ 1', parse: parsePositiveInt },
  { key: 'max-tokens-field', description: 'max_tokens or max_completion_tokens', parse: parseMaxTokensField },
  { key: 'system', description: 'system prompt (an alias with one is a role)', parse: parseSystem },
  { key: 'options', description: 'JSON object of extra request-body fields, like -o', parse: parseBodyFields },
  { key: 'context', description: 'context window in tokens (learned from a context-length error)', parse: parsePositiveInt },
  { key: 'fallback', description: 'models (ids or aliases, comma-separated) to try when this one fails before answering', parse: parseModelList },
  { key: 'price-in', description: 'USD per million input tokens', parse: parseUsd },
  { key: 'price-out', description: 'USD per million output tokens', parse: parseUsd },
  { key: 'price-cache-read', description: 'USD per million input tokens read from the prompt cache', parse: parseUsd },
  { key: 'price-cache-write', description: 'USD per million input tokens written to the prompt cache', parse: parseUsd },
];

/** `gone,echo`: model ids or aliases, comma-separated, in the order they are tried. */
export function parseModelList(raw: string, option: string): string[] {
  const names = raw.split(',').map((name) => name.trim());
  if (names.length === 0 || names.some((name) => name === '')) throw new UsageError(`${option}: expected model ids or aliases separated by commas, got ${shown(raw)}`);
  return names.map((name) => parseModel(name, option));
}

export const MODEL_ENTRY_KEY_NAMES: readonly ModelEntryKey[] = MODEL_ENTRY_KEYS.map((spec) => spec.key);

export function modelEntryKey(key: string): ModelEntryKey {
  const spec = MODEL_ENTRY_KEYS.find((s) => s.key === key);
  if (!spec) throw new UsageError(`unknown model-entry key ${shown(key)} (valid keys: ${MODEL_ENTRY_KEY_NAMES.join(', ')})`);
  return spec.key;
}

export function parseModelEntryValue(key: ModelEntryKey, raw: string, option: string): unknown {
  return MODEL_ENTRY_KEYS.find((s) => s.key === key)!.parse(raw, option);
}

/** Entry names become JSON object keys: a model id (no spaces), never `__proto__`. */
export function parseModelName(raw: string, option: string): string {
  const name = parseModel(raw, option);
  if (name === '__proto__') throw new UsageError(`${option}: not a valid model name: ${shown(raw)}`);
  return name;
}

/** A value read from config.json, re-checked with the parser `config set` uses (hand edits happen). */
function checkStoredEntryValue(key: ModelEntryKey, value: unknown, label: string): unknown {
  if (key === 'options') return checkBodyFields(value, label);
  if (key === 'system') {
    if (typeof value !== 'string') throw new UsageError(`${label}: expected a string`);
    return parseSystem(value, label);
  }
  if (key === 'fallback' && Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string')) throw new UsageError(`${label}: expected model ids or aliases`);
    return parseModelList(value.join(','), label);
  }
  if (typeof value !== 'string' && typeof value !== 'number') throw new UsageError(`${label}: expected ${MODEL_ENTRY_KEYS.find((s) => s.key === key)!.description}`);
  return parseModelEntryValue(key, String(value), label);
}

/** The entry stored under `name` in one scope (own keys only), or undefined. */
export function storedEntry(scope: ConfigScope | undefined, name: string): Record<string, unknown> | undefined {
  const models = scope?.models;
  if (typeof models !== 'object' || models === null || !Object.prototype.hasOwnProperty.call(models, name)) return undefined;
  const entry = (models as Record<string, unknown>)[name];
  return typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as Record<string, unknown>) : undefined;
}

type RawEntry = Map<ModelEntryKey, { value: unknown; label: string }>;

/** One name's stored keys as they apply: the profile's over the top level's, not yet checked. */
function rawEntry(file: ConfigFile, profile: string | undefined, name: string): RawEntry {
  const layers: Array<[Record<string, unknown> | undefined, string]> = [
    [storedEntry(file, name), `config --model ${name}`],
    [profile === undefined ? undefined : storedEntry(file.profiles?.[profile], name), `config --model ${name} (profile ${profile})`],
  ];
  const entry: RawEntry = new Map();
  for (const [layer, label] of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      const known = MODEL_ENTRY_KEYS.find((s) => s.key === key);
      // Unknown keys (a newer version's, or a typo in a hand edit) are ignored, not fatal.
      if (known && value !== undefined) entry.set(known.key, { value, label: `${label} ${key}` });
    }
  }
  return entry;
}

export type EntrySetting = Exclude<ModelEntryKey, 'model'>;

export interface ResolvedModel {
  /** What the user asked for (`-m`, GATECHAT_MODEL, config model). */
  name: string;
  /** The id sent to the gateway: the alias's `model`, else the name itself. */
  id: string;
  /**
   * A setting of the entry (the name's over the id's own entry: one level, never further), checked
   * only when asked for, so a flag can still override a broken stored value.
   */
  get<K extends EntrySetting>(key: K): ModelEntry[K] | undefined;
}

export function resolveModelEntry(file: ConfigFile, profile: string | undefined, name: string): ResolvedModel {
  const named = rawEntry(file, profile, name);
  const alias = named.get('model');
  const id = alias === undefined ? name : (checkStoredEntryValue('model', alias.value, alias.label) as string);
  const merged: RawEntry = id === name ? named : new Map([...rawEntry(file, profile, id), ...named]);
  return {
    name,
    id,
    get(key) {
      const raw = merged.get(key);
      return raw === undefined ? undefined : (checkStoredEntryValue(key, raw.value, raw.label) as ModelEntry[typeof key]);
    },
  };
}

/** Every entry name in one scope, in file order. */
export function entryNames(scope: ConfigScope | undefined): string[] {
  const models = scope?.models;
  return typeof models === 'object' && models !== null ? Object.keys(models) : [];
}

/** Alias name → real id, from the top level and the profile in effect (the profile wins). */
export function aliasesOf(file: ConfigFile, profile: string | undefined): Map<string, string> {
  const aliases = new Map<string, string>();
  const scopes = [file, profile === undefined ? undefined : file.profiles?.[profile]];
  for (const scope of scopes) {
    for (const name of entryNames(scope)) {
      const id = storedEntry(scope, name)?.model;
      if (typeof id === 'string') aliases.set(name, id);
    }
  }
  return aliases;
}
