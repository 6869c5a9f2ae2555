import { readFileSync, statSync } from 'node:fs';
import type { JsonObject } from '../protocol/json.js';
import { parseSchemaOption } from '../protocol/schema.js';
import { UsageError } from '../exit-codes.js';

/** A schema file's text, or undefined when `path` names no regular file (then it is a field list). */
function readIfFile(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
  } catch {
    return undefined;
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--schema: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * `--schema <value>` (and a batch line's `schema`): inline JSON Schema, a file, or a field list,
 * checked before anything is sent. `label` names the option in the error.
 */
export function readSchemaOption(value: string, label = '--schema'): JsonObject {
  const parsed = parseSchemaOption(value, readIfFile);
  if (!parsed.ok) throw new UsageError(`${label}: ${parsed.message}`);
  return parsed.schema;
}
