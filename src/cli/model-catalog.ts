import { listedPrices, listModels } from '../client/models.js';
import { aliasesOf } from '../config/model-entries.js';
import type { ConfigFile } from '../config/keys.js';
import { resolveSettings, type Settings, type SettingsFlags } from '../config/settings.js';
import type { ModelCatalog } from '../render/ink/slash-commands.js';
import { cachedModelList, contextWindowsOf, saveModelIds } from '../session/models-cache.js';
import type { SessionSettings } from '../session/types.js';
import type { Connection } from '../transport/http.js';

// What /model (Tab) and /models know in chat (SPEC §11): the aliases in the config and the ids of
// the gateway's model list, cached in the data dir for a day. A missing or older list is fetched in
// the background the first time it is needed (the first Tab after /model, or /models), never at start.

export const MODEL_LIST_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface CatalogInput {
  file: ConfigFile;
  flags: SettingsFlags;
  env: Record<string, string | undefined>;
  settings: Settings;
  conn: Connection;
  log?: (line: string) => void;
  now?: number;
}

export function openModelCatalog({ file, flags, env, settings, conn, log, now = Date.now() }: CatalogInput): ModelCatalog {
  const aliases = aliasesOf(file, settings.profile);
  const cached = cachedModelList(conn.baseUrl);
  let ids = cached.ids;
  let fetching: Promise<void> | null = null;
  let fetched = false;
  const stale = cached.savedAt === null || now - cached.savedAt > MODEL_LIST_MAX_AGE_MS;
  const refreshIfStale = () => {
    if (!stale || fetching) return;
    // In the background: the input never waits for the list, and a gateway without one is fine.
    fetching = listModels(conn)
      .then((models) => {
        ids = models.map((m) => m.id).filter((id) => /^[^\s\u0000-\u001f\u007f]+$/.test(id));
        saveModelIds(conn.baseUrl, ids, undefined, { contexts: contextWindowsOf(models), prices: listedPrices(models) });
      })
      .catch((error: unknown) => log?.(`model list for /model completion not refreshed: ${(error as Error).message}`))
      .finally(() => {
        fetched = true;
      });
  };
  return {
    pending() {
      return fetching && !fetched ? fetching : null;
    },
    async listed() {
      refreshIfStale();
      if (fetching) await fetching;
      return ids.length > 0 ? ids : null;
    },
    names() {
      refreshIfStale();
      return [...aliases.keys(), ...ids];
    },
    describe(filter) {
      refreshIfStale();
      const needle = filter.toLowerCase();
      const match = (text: string) => text.toLowerCase().includes(needle);
      const aliasLines = [...aliases].filter(([name, id]) => match(name) || match(id)).map(([name, id]) => `  ${name} → ${id}`);
      const idLines = ids.filter(match).map((id) => `  ${id}`);
      const lines: string[] = [];
      if (aliasLines.length) lines.push('Aliases:', ...aliasLines);
      if (idLines.length) lines.push(`Models at ${conn.baseUrl}:`, ...idLines);
      if (!ids.length && fetching) lines.push("(fetching the gateway's model list: /models again in a moment)");
      if (!lines.length) return ids.length || aliases.size ? `nothing matches ${JSON.stringify(filter)}` : 'no aliases, and this gateway offers no model list';
      return lines.join('\n');
    },
    resolve(name) {
      // The same resolution as -m NAME at launch; only what the model's entry sets is applied, so a
      // /temperature typed earlier is kept unless the new entry has its own.
      const resolved = resolveSettings({ flags: { ...flags, model: name }, env, file });
      const patch: Partial<SessionSettings> & { model: string } = { model: resolved.model!, extraBody: resolved.extraBody };
      if (resolved.sources.api === 'model') patch.api = resolved.api;
      if (resolved.sources.temperature === 'model') patch.temperature = resolved.temperature;
      if (resolved.sources.maxTokens === 'model') patch.maxTokens = resolved.maxTokens;
      if (resolved.sources.system === 'model') patch.system = resolved.system;
      return patch;
    },
  };
}
