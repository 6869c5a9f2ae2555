import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedContextWindow, cachedModelList, cachedPrices, contextWindowsOf, saveModelIds } from '../../src/session/models-cache.js';

// The models cache's context windows and prices (SPEC §16, §17), read back as the chat and cost code do.

const root = mkdtempSync(join(tmpdir(), 'gatechat-models-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);
const URL = 'http://gw/v1';
const file = (dir: string) => join(dir, 'models-cache.json');
const withCache = (value: unknown) => {
  const dir = freshDir();
  saveModelIds('seed', [], dir);
  writeFileSync(file(dir), JSON.stringify(value));
  return dir;
};

describe('models cache: contexts and prices', () => {
  it('saves contexts and prices beside the ids, and leaves empty ones out of the file', () => {
    const dir = freshDir();
    saveModelIds(URL, ['a', 'b'], dir, { contexts: { a: 8192 }, prices: { a: { in: 1, out: 2 } } });
    const saved = JSON.parse(readFileSync(file(dir), 'utf8'))[URL];
    expect(saved).toEqual({ saved_at: saved.saved_at, ids: ['a', 'b'], contexts: { a: 8192 }, prices: { a: { in: 1, out: 2 } } });
    saveModelIds(URL, ['c'], dir, { contexts: {}, prices: {} });
    expect(Object.keys(JSON.parse(readFileSync(file(dir), 'utf8'))[URL])).toEqual(['saved_at', 'ids']);
    expect(cachedContextWindow(URL, 'a', dir)).toBeUndefined();
  });

  it('a cache file that holds no object is replaced, not merged into', () => {
    const dir = withCache('ab');
    saveModelIds(URL, ['m'], dir);
    expect(Object.keys(JSON.parse(readFileSync(file(dir), 'utf8')))).toEqual([URL]);
    expect(cachedModelList(URL, dir).ids).toEqual(['m']);
  });

  it('context windows: positive whole numbers only; unknown gateway, model or damaged entries are undefined', () => {
    const dir = withCache({
      [URL]: { ids: [], contexts: { ok: 200000, zero: 0, neg: -5, half: 1.5, text: '4096', nil: null } },
      'http://none/v1': { ids: [] },
      'http://null/v1': { ids: [], contexts: null },
      'http://text/v1': { ids: [], contexts: 'abcd' },
    });
    expect(cachedContextWindow(URL, 'ok', dir)).toBe(200000);
    for (const model of ['zero', 'neg', 'half', 'text', 'nil', 'missing', 'toString']) expect(cachedContextWindow(URL, model, dir)).toBeUndefined();
    expect(cachedContextWindow('http://elsewhere/v1', 'ok', dir)).toBeUndefined();
    expect(cachedContextWindow('http://none/v1', 'ok', dir)).toBeUndefined();
    expect(cachedContextWindow('http://null/v1', 'ok', dir)).toBeUndefined();
    expect(cachedContextWindow('http://text/v1', 'length', dir)).toBeUndefined();
  });

  it('contextWindowsOf keeps the models that give one', () => {
    expect(contextWindowsOf([{ id: 'a', context_length: 100 }, { id: 'b' }, { id: 'c', context_length: 0 }])).toStrictEqual({ a: 100, c: 0 });
    expect(contextWindowsOf([])).toEqual({});
  });

  it('prices: in and out needed, cache prices when valid, anything damaged is undefined', () => {
    const dir = withCache({
      [URL]: {
        ids: [],
        prices: {
          full: { in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75 },
          free: { in: 0, out: 0, cacheRead: -1, cacheWrite: '1' },
          noOut: { in: 1 },
          noIn: { out: 1 },
          negative: { in: -1, out: 1 },
          text: { in: '1', out: 1 },
          infinite: { in: 1, out: 1e999 },
          nil: null,
        },
      },
      'http://none/v1': { ids: [] },
      'http://null/v1': { ids: [], prices: null },
    });
    expect(cachedPrices(URL, 'full', dir)).toStrictEqual({ in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(cachedPrices(URL, 'free', dir)).toStrictEqual({ in: 0, out: 0 });
    for (const model of ['noOut', 'noIn', 'negative', 'text', 'infinite', 'nil', 'missing', 'toString']) expect(cachedPrices(URL, model, dir)).toBeUndefined();
    expect(cachedPrices('http://elsewhere/v1', 'full', dir)).toBeUndefined();
    expect(cachedPrices('http://none/v1', 'full', dir)).toBeUndefined();
    expect(cachedPrices('http://null/v1', 'full', dir)).toBeUndefined();
  });
});
