import { listModels } from '../../client/models.js';
import { UsageError } from '../../exit-codes.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import { connectionFrom, diagnostics, loadSettings, resolveApiKey, type Io } from '../context.js';
import type { ChatFlags } from '../flags.js';
import { saveModelIds } from '../../session/models-cache.js';

/** `gatechat models`: ids one per line when piped (for scripts), a table on a terminal. */
export async function runModelsCommand(flags: ChatFlags, opts: { json: boolean; verbose: boolean }, io: Io): Promise<number> {
  const settings = await loadSettings(flags);
  if (!settings.baseUrl) {
    throw new UsageError('no base URL configured', 'run: gatechat config set base-url https://your-gateway/v1');
  }
  const conn = connectionFrom(await resolveApiKey({ ...settings, baseUrl: settings.baseUrl }));
  const { log } = diagnostics(io, opts.verbose);
  const models = await listModels(conn, undefined, log);
  try {
    // For shell completion of -m (SPEC §14); an id with blanks or controls could not be typed anyway.
    saveModelIds(conn.baseUrl, models.map((m) => m.id).filter((id) => /^[^\s\u0000-\u001f\u007f]+$/.test(id)));
  } catch (error) {
    log?.(`could not save the model list for completion: ${(error as Error).message}`);
  }
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(models)}\n`);
  } else if (io.stdout.isTTY) {
    // The gateway's ids and owners are drawn on a terminal: no escape codes (SPEC §8).
    const rows = models.map((m) => ({ id: sanitizeForTerminal(m.id), owner: sanitizeForTerminal(m.owned_by ?? '') }));
    const width = Math.max(2, ...rows.map((m) => m.id.length));
    io.stdout.write(`${'ID'.padEnd(width)}  OWNER\n`);
    for (const model of rows) io.stdout.write(`${model.id.padEnd(width)}  ${model.owner}\n`);
    io.stderr.write(`${models.length} model${models.length === 1 ? '' : 's'} at ${conn.baseUrl}\n`);
  } else {
    for (const model of models) io.stdout.write(`${model.id}\n`);
  }
  return 0;
}
