import type { Prices } from '../protocol/cost.js';
import { join } from 'node:path';
import { ensurePrivateDir, readOwnFile, writeFileAtomic } from '../storage/own-files.js';
import { dataDir } from './paths.js';

// The model ids `gatechat models` last saw, per base URL, so shell completion can offer them
// without a network request at every TAB.

const FILE = 'models-cache.json';
type Cache = Record<string, { saved_at: string; ids: string[]; contexts?: Record<string, number>; prices?: Record<string, Prices> }>;

function read(dir: string): Cache {
  try {
    const value = JSON.parse(readOwnFile(join(dir, FILE))) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Cache) : {};
  } catch {
    return {}; // missing or damaged: a cache, rebuilt by the next `gatechat models`
  }
}

/**
 * What a model list gives beside the ids: `contexts`, the context windows (SPEC §17: what a continued
 * conversation fits into); `prices`, USD per million tokens by id (SPEC §16 costs).
 */
export function saveModelIds(baseUrl: string, ids: string[], dir = dataDir(), listed: { contexts?: Record<string, number>; prices?: Record<string, Prices> } = {}): void {
  ensurePrivateDir(dir);
  const contexts = listed.contexts && Object.keys(listed.contexts).length > 0 ? { contexts: listed.contexts } : {};
  const priced = listed.prices && Object.keys(listed.prices).length > 0 ? { prices: listed.prices } : {};
  const cache = { ...read(dir), [baseUrl]: { saved_at: new Date().toISOString(), ids, ...contexts, ...priced } };
  // A cache: losing a race with another `gatechat models` costs one refresh, so no lock.
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: durable only adds an fsync, which no test can see short of a crash
  writeFileAtomic(join(dir, FILE), `${JSON.stringify(cache)}\n`, { durable: false });
}

/** Every cached id, all gateways together. */
export function cachedModelIds(dir = dataDir()): string[] {
  return Object.values(read(dir)).flatMap((entry) => (Array.isArray(entry?.ids) ? entry.ids.filter((id): id is string => typeof id === 'string') : []));
}

/** The ids cached for one gateway and when they were saved (null: never). */
export function cachedModelList(baseUrl: string, dir = dataDir()): { ids: string[]; savedAt: number | null } {
  const entry = read(dir)[baseUrl];
  const ids = Array.isArray(entry?.ids) ? entry.ids.filter((id): id is string => typeof id === 'string') : [];
  const savedAt = typeof entry?.saved_at === 'string' ? Date.parse(entry.saved_at) : NaN;
  return { ids, savedAt: Number.isNaN(savedAt) ? null : savedAt };
}

/** The context window the gateway's list gave for `model`, if it was cached (no age limit: windows rarely change). */
export function cachedContextWindow(baseUrl: string, model: string, dir = dataDir()): number | undefined {
  const contexts = read(dir)[baseUrl]?.contexts;
  const value = typeof contexts === 'object' && contexts !== null && Object.prototype.hasOwnProperty.call(contexts, model) ? contexts[model] : undefined;
  // Number.isSafeInteger is false for anything but a number: no typeof check before it.
  return Number.isSafeInteger(value) && (value as number) > 0 ? value : undefined;
}

/** The context windows a model list gives, by id (what saveModelIds keeps beside the ids). */
export function contextWindowsOf(models: ReadonlyArray<{ id: string; context_length?: number }>): Record<string, number> {
  return Object.fromEntries(models.flatMap((m) => (m.context_length !== undefined ? [[m.id, m.context_length]] : [])));
}

/** A model's prices as the gateway's list last gave them (SPEC §16); undefined when not cached or damaged. */
export function cachedPrices(baseUrl: string, model: string, dir = dataDir()): Prices | undefined {
  const entry = read(dir)[baseUrl]?.prices;
  if (typeof entry !== 'object' || entry === null || !Object.prototype.hasOwnProperty.call(entry, model)) return undefined;
  const prices = ((entry as Record<string, unknown>)[model] ?? {}) as Record<string, unknown>;
  // Number.isFinite is false for anything but a number: no typeof check before it.
  const usd = (value: unknown) => (Number.isFinite(value) && (value as number) >= 0 ? (value as number) : undefined);
  const input = usd(prices.in);
  const output = usd(prices.out);
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = usd(prices.cacheRead);
  const cacheWrite = usd(prices.cacheWrite);
  return { in: input, out: output, ...(cacheRead !== undefined ? { cacheRead } : {}), ...(cacheWrite !== undefined ? { cacheWrite } : {}) };
}
