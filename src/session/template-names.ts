import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../config/store.js';
import { UsageError } from '../exit-codes.js';

// SPEC §18: where templates live and what they are called. No YAML here: completion (shell and chat)
// lists names on every Tab and must stay as light as a directory read.

/** `<config dir>/templates`: beside config.json, so GATECHAT_CONFIG_DIR moves both. */
export function templatesDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'templates');
}

/** A name is one plain file name (no path, no dot start), so `-T ../x` cannot reach outside the dir. */
export function parseTemplateName(raw: string, what = 'template'): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(raw)) {
    throw new UsageError(`${what}: ${JSON.stringify(raw)} is not a template name (letters, digits, . _ -; not starting with a dot)`);
  }
  return raw;
}

export const TEMPLATE_EXTENSION = '.md';

/** The templates' names, sorted; none when the directory is missing or unreadable (completion never fails). */
export function listTemplateNames(dir: string = templatesDir()): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(TEMPLATE_EXTENSION))
      .map((entry) => entry.name.slice(0, -TEMPLATE_EXTENSION.length))
      .filter((name) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
      .sort();
  } catch {
    return [];
  }
}
