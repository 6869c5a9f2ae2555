/**
 * `@path` in a message attaches that file or directory like /attach (SPEC §8); `\@` is a literal `@`.
 * A reference starts a word (`me@example.com` is no reference). The message keeps `@path` as typed,
 * so the model sees which file is meant; the file travels as an attachment headed by its path.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Attachment } from '../../protocol/events.js';
import { readAttachments } from '../../session/attachments.js';

// A word that starts with @ or \@ (the backslash escaping it).
const REFERENCE = /(^|\s)(\\?)@(\S+)/g;
// Sentence punctuation after a path ("look at @notes.txt.") is not part of it.
const TRAILING = /[.,;:!?)\]}'"]+$/;

export interface References {
  /** The message to send: `\@` unescaped. */
  text: string;
  /** Each reference as typed, and the same without trailing punctuation. */
  paths: Array<{ typed: string; trimmed: string }>;
}

/** The references in a message (pure). */
export function findReferences(message: string): References {
  const paths: References['paths'] = [];
  const text = message.replace(REFERENCE, (_, lead: string, escape: string, path: string) => {
    if (escape) return `${lead}@${path}`;
    paths.push({ typed: path, trimmed: path.replace(TRAILING, '') });
    return `${lead}@${path}`;
  });
  return { text, paths };
}

/** The message as sent: `\@` as `@`. */
export function unescapeAt(message: string): string {
  return findReferences(message).text;
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
}

/**
 * The message and the files its references name, read like /attach's (`warn` gets the line naming
 * skipped links); a reference that names nothing is an error (nothing is sent), whose message says
 * how to write a literal @.
 */
export async function readReferences(message: string, warn: (line: string) => void, cwd = process.cwd()): Promise<{ text: string; files: Attachment[] }> {
  const { text, paths } = findReferences(message);
  if (paths.length === 0) return { text, files: [] };
  const chosen = paths.map(({ typed, trimmed }) => {
    const full = expandHome(typed);
    if (existsSync(resolve(cwd, full))) return full;
    const short = expandHome(trimmed);
    if (short && existsSync(resolve(cwd, short))) return short;
    throw new Error(`@${typed}: no such file or directory (\\@ sends a literal @)`);
  });
  const unique = [...new Set(chosen)];
  // Relative paths stay relative in the process's directory: the attachment is headed by the path as typed.
  const files = await readAttachments(unique.map((p) => (cwd === process.cwd() ? p : resolve(cwd, p))), { warn });
  return { text, files };
}
