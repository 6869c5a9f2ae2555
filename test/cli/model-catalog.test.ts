// What /model (Tab) and /models know in chat: aliases from the config and the gateway's ids, cached
// in the data dir for a day. Against the dev gateway over loopback HTTP, with a temp data dir.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openModelCatalog, MODEL_LIST_MAX_AGE_MS } from '../../src/cli/model-catalog.js';
import { connectionFrom } from '../../src/cli/context.js';
import { resolveSettings } from '../../src/config/settings.js';
import type { ConfigFile } from '../../src/config/keys.js';
import { cachedModelList, saveModelIds } from '../../src/session/models-cache.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const saved = process.env.GATECHAT_DATA_DIR;
beforeEach(() => {
  process.env.GATECHAT_DATA_DIR = ctx.user.dataDir;
});
afterEach(() => {
  if (saved === undefined) delete process.env.GATECHAT_DATA_DIR;
  else process.env.GATECHAT_DATA_DIR = saved;
});

const file: ConfigFile = {
  models: {
    critic: { model: 'echo', api: 'messages', temperature: 0.3, system: 'Be critical.', options: { top_p: 0.5 } },
    quick: { model: 'lorem-200' },
  },
};

function open(now = Date.now()) {
  const settings = resolveSettings({ flags: { baseUrl: ctx.base, model: 'echo' }, env: {}, file });
  const conn = connectionFrom({ ...settings, baseUrl: ctx.base });
  return openModelCatalog({ file, flags: { baseUrl: ctx.base }, env: {}, settings, conn, now });
}

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('model catalog', () => {
  it('no cached list: nothing fetched until needed; then aliases at once, the gateway ids fetched in the background and cached', async () => {
    const catalog = open();
    await new Promise((r) => setTimeout(r, 100));
    expect(ctx.gateway.requests).toHaveLength(0);
    expect(catalog.names()).toEqual(['critic', 'quick']);
    await until(() => catalog.names().includes('lorem-200'), 'the model list');
    expect(ctx.gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    expect(cachedModelList(ctx.base).ids).toContain('slow-80');
    expect(catalog.describe('crit')).toBe('Aliases:\n  critic → echo');
    expect(catalog.describe('slow')).toBe(`Models at ${ctx.base}:\n  slow-80`);
  });

  it('a list cached less than a day ago is used as it is; an older one is refreshed', async () => {
    saveModelIds(ctx.base, ['cached-a', 'cached-b']);
    expect(open().names()).toEqual(['critic', 'quick', 'cached-a', 'cached-b']);
    await new Promise((r) => setTimeout(r, 100));
    expect(ctx.gateway.requests).toHaveLength(0);

    const stale = open(Date.now() + MODEL_LIST_MAX_AGE_MS + 1000);
    expect(stale.describe('')).toContain('cached-a');
    await until(() => stale.names().includes('echo'), 'the refreshed list');
    expect(ctx.gateway.requests).toHaveLength(1);
  });

  it('/model ALIAS brings the id and what its entry sets', () => {
    saveModelIds(ctx.base, []);
    const catalog = open();
    expect(catalog.resolve('critic')).toEqual({ model: 'echo', api: 'messages', temperature: 0.3, system: 'Be critical.', extraBody: { top_p: 0.5 } });
    expect(catalog.resolve('quick')).toEqual({ model: 'lorem-200', extraBody: undefined });
    expect(catalog.resolve('plain-id')).toEqual({ model: 'plain-id', extraBody: undefined });
  });
});
