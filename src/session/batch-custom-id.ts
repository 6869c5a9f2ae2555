import { createHash } from 'node:crypto';
import type { BatchItem } from './batch-input.js';

/**
 * A remote batch request's `custom_id` (SPEC §19): the input line number, then the line's id when it
 * fits the Messages pattern `^[a-zA-Z0-9_-]{1,64}$` (which OpenAI's files accept too), so results map
 * back to output lines without holding the input in memory:
 *   `l7` (id = line number) · `l7-n42` (numeric id) · `l7-sq1` (string id)
 * A line whose id does not fit, or that carries its own "schema" (needed to check the answer), is
 * `l7-x<hash>`: its id and schema are read back from the input line, and the hash of the id checks
 * that the input has not changed since it was submitted.
 */
const MAX_CUSTOM_ID = 64;
const SAFE = /^[A-Za-z0-9_-]+$/;

export type CustomIdRef =
  | { line: number; id: string | number; fromInput: false }
  | { line: number; idHash: string; fromInput: true };

export function idHash(id: string | number): string {
  return createHash('sha256').update(typeof id === 'number' ? `#${id}` : `"${id}`).digest('hex').slice(0, 16);
}

/** Whether the line's id or schema must be read back from the input when its result comes. */
export function needsInput(item: BatchItem): boolean {
  return customIdFor(item).includes('-x');
}

export function customIdFor(item: BatchItem): string {
  const head = `l${item.line}`;
  if (item.schema === undefined) {
    if (item.id === item.line) return head;
    if (typeof item.id === 'number') return `${head}-n${item.id}`;
    const text = `${head}-s${item.id}`;
    if (SAFE.test(item.id) && text.length <= MAX_CUSTOM_ID) return text;
  }
  return `${head}-x${idHash(item.id)}`;
}

/** null for a custom_id gatechat did not make (a foreign or damaged result line). */
export function parseCustomId(customId: unknown): CustomIdRef | null {
  if (typeof customId !== 'string') return null;
  const match = /^l([1-9][0-9]{0,15})(?:-([nsx])(.+))?$/.exec(customId);
  if (!match) return null;
  const line = Number(match[1]);
  if (!Number.isSafeInteger(line)) return null;
  const [, , kind, rest] = match;
  if (kind === undefined) return { line, id: line, fromInput: false };
  if (kind === 's') return { line, id: rest, fromInput: false };
  if (kind === 'x') return /^[0-9a-f]{16}$/.test(rest) ? { line, idHash: rest, fromInput: true } : null;
  const id = Number(rest);
  return /^-?[0-9]+$/.test(rest) && Number.isSafeInteger(id) ? { line, id, fromInput: false } : null;
}
