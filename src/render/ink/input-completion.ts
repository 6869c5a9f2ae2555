/**
 * What Tab does at the cursor: command names, template names after `/template `, model names after `/model ` and `/retry -m ` (waiting for the gateway's
 * list the first time, when nothing is cached), and paths after `/attach `, `/save ` and `@`. The
 * choice is pure; the file system and the model list come in as sources.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { MODEL_ARGUMENT, tabCompletion } from './commands.js';

export interface DirEntry {
  name: string;
  dir: boolean;
}

export interface CompletionSources {
  /** Aliases and model ids (asking may start fetching the gateway's list). */
  modelNames?: () => readonly string[];
  /** The gateway's list being fetched right now, if it is. */
  modelsPending?: () => Promise<unknown> | null;
  /** Template names for `/template ` (SPEC §18). */
  templateNames?: () => readonly string[];
  /** The entries of a directory (absolute path), or null when it cannot be read. */
  listDir?: (dir: string) => DirEntry[] | null;
  cwd?: string;
}

export type TabResult =
  | { kind: 'replace'; from: number; to: number; text: string; hint: string | null }
  /** Nothing to offer yet: the model list is on its way; Tab is tried again when it has come. */
  | { kind: 'wait'; until: Promise<unknown>; hint: string }
  | null;

/** How many candidates the status line lists. */
const SHOWN = 12;

function listing(candidates: readonly string[]): string {
  const more = candidates.length > SHOWN ? `  … ${candidates.length - SHOWN} more` : '';
  return `${candidates.slice(0, SHOWN).join('  ')}${more}`;
}

function commonPrefix(names: readonly string[]): string {
  let prefix = names[0] ?? '';
  for (const name of names) while (!name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

export function readDir(dir: string): DirEntry[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((entry) => {
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        try {
          isDir = statSync(join(dir, entry.name)).isDirectory();
        } catch {
          // A dangling link completes as a file.
        }
      }
      return { name: entry.name, dir: isDir };
    });
  } catch {
    return null;
  }
}

/** Completes a typed path: one match whole (a file then a space), several to their common start. */
export function completePath(typed: string, sources: CompletionSources): { text: string; hint: string | null } {
  const slash = typed.lastIndexOf('/');
  const dirPart = typed.slice(0, slash + 1);
  const base = typed.slice(slash + 1);
  const expanded = dirPart === '~/' || dirPart.startsWith('~/') ? homedir() + dirPart.slice(1) : dirPart;
  const dir = resolve(sources.cwd ?? process.cwd(), expanded || '.');
  const entries = (sources.listDir ?? readDir)(dir) ?? [];
  // Dot entries only when the typed name starts with a dot, as shells do.
  const matches = entries
    .filter((e) => e.name.startsWith(base) && (base.startsWith('.') || !e.name.startsWith('.')))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (matches.length === 0) return { text: typed, hint: 'no file or directory starts with that' };
  if (matches.length === 1) {
    const only = matches[0]!;
    return { text: `${dirPart}${only.name}${only.dir ? '/' : ' '}`, hint: null };
  }
  return { text: `${dirPart}${commonPrefix(matches.map((m) => m.name))}`, hint: listing(matches.map((m) => `${m.name}${m.dir ? '/' : ''}`)) };
}

export function completeAtCursor(value: string, cursor: number, sources: CompletionSources = {}): TabResult {
  const before = value.slice(0, cursor);
  const pathArgument = /^\/(?:attach|save!?)\s+([^\n]*)$/.exec(before) ?? /(?:^|\s)@(\S*)$/.exec(before);
  if (pathArgument) {
    const typed = pathArgument[1]!;
    const done = completePath(typed, sources);
    return { kind: 'replace', from: cursor - typed.length, to: cursor, text: done.text, hint: done.hint };
  }
  if (cursor !== value.length) return null;
  const template = /^\/template\s+(\S*)$/.exec(value);
  if (template && sources.templateNames) return completeTemplate(value, template[1]!, sources.templateNames());
  const model = MODEL_ARGUMENT.exec(value);
  if (model && sources.modelNames) {
    const names = sources.modelNames();
    const pending = sources.modelsPending?.();
    // The first Tab in a fresh data dir: the list is being fetched; offer it once it is here.
    if (pending && !names.some((n) => n.startsWith(model[1]!) && n !== model[1])) {
      return { kind: 'wait', until: pending, hint: "fetching the gateway's model list…" };
    }
  }
  const completed = tabCompletion(value, sources.modelNames);
  return completed && { kind: 'replace', from: 0, to: value.length, text: completed.value, hint: completed.hint };
}

/** `/template re` → the names that start so: one whole (then a space), several to their common start. */
function completeTemplate(value: string, typed: string, names: readonly string[]): TabResult {
  const lead = value.slice(0, value.length - typed.length);
  const matches = names.filter((name) => name.startsWith(typed));
  const replace = (text: string, hint: string | null): TabResult => ({ kind: 'replace', from: 0, to: value.length, text, hint });
  if (matches.length === 0) return replace(value, 'no template starts with that: /template lists them');
  if (matches.length === 1) return replace(`${lead}${matches[0]} `, null);
  return replace(`${lead}${commonPrefix(matches)}`, listing(matches));
}
