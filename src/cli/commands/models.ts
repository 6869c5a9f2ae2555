import { listedPrices, listModels } from '../../client/models.js';
import { UsageError } from '../../exit-codes.js';
import { aliasesOf } from '../../config/model-entries.js';
import { openConfigStore } from '../../config/store.js';
import { modelTable } from '../../render/model-table.js';
import { connectionFrom, diagnostics, loadSettings, resolveApiKey, type Io } from '../context.js';
import type { ChatFlags } from '../flags.js';
import { contextWindowsOf, saveModelIds } from '../../session/models-cache.js';
import { jsonText } from '../../render/json-text.js';

/**
 * `gatechat models [filter]`: ids one per line when piped (for scripts), a table with aliases,
 * context length and prices on a terminal, the gateway's own objects with --json (SPEC §11).
 */
export async function runModelsCommand(flags: ChatFlags, opts: { json: boolean; verbose: boolean; filter?: string }, io: Io): Promise<number> {
  const settings = await loadSettings(flags);
  if (!settings.baseUrl) {
    throw new UsageError('no base URL configured', 'run: gatechat config set base-url https://your-gateway/v1');
  }
  const conn = connectionFrom(await resolveApiKey({ ...settings, baseUrl: settings.baseUrl }));
  const { log } = diagnostics(io, opts.verbose);
  const all = await listModels(conn, undefined, log);
  try {
    // For shell completion of -m (SPEC §14); an id with blanks or controls could not be typed anyway.
    const ids = all.map((m) => m.id).filter((id) => /^[^\s\u0000-\u001f\u007f]+$/.test(id));
    // With each model's context window, which a continued conversation is fitted into (SPEC §17), and
    // prices, so answers the gateway does not put a figure on can still be costed (SPEC §16).
    saveModelIds(conn.baseUrl, ids, undefined, { contexts: contextWindowsOf(all), prices: listedPrices(all) });
  } catch (error) {
    log?.(`could not save the model list for completion: ${(error as Error).message}`);
  }
  const needle = opts.filter?.toLowerCase();
  const models = needle ? all.filter((m) => m.id.toLowerCase().includes(needle)) : all;
  if (opts.json) {
    io.stdout.write(`${jsonText(models.map((m) => m.raw))}\n`);
  } else if (io.stdout.isTTY) {
    const aliases = aliasesOf(openConfigStore().snapshot(), settings.profile);
    io.stdout.write(`${modelTable(models, aliases).join('\n')}\n`);
    const matching = needle ? ` matching ${JSON.stringify(opts.filter)}` : '';
    io.stderr.write(`${models.length} model${models.length === 1 ? '' : 's'}${matching} at ${conn.baseUrl}\n`);
  } else {
    for (const model of models) io.stdout.write(`${model.id}\n`);
  }
  return 0;
}
