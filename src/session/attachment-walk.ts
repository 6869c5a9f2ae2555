import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

// A directory given to -a attaches its text files the way ripgrep and fd pick files: hidden
// entries (dot files and dot folders: .git, .env, .venv …) skipped, and the .gitignore rules of the
// directory, its subdirectories and its repository's enclosing directories honoured. The rule
// matching itself is the `ignore` package (git's own semantics), not a matcher of ours.

interface Rules {
  /** The directory the .gitignore sits in: its patterns are relative to it. */
  base: string;
  matcher: Ignore;
}

function rulesIn(dir: string): Rules | null {
  let text: string;
  try {
    text = readFileSync(join(dir, '.gitignore'), 'utf8');
  } catch {
    return null;
  }
  return { base: dir, matcher: ignore().add(text) };
}

/**
 * The rules of the directories above `root` up to its repository's top (the nearest one holding
 * .git), outermost first; none when `root` is not inside a repository.
 */
function enclosingRules(root: string): Rules[] {
  const chain: string[] = [];
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (existsSync(join(dir, '.git'))) return chain.flatMap((d) => rulesIn(d) ?? []);
    if (dirname(dir) === dir) return [];
  }
}

/** Git's answer for one path: the deepest rule that says anything wins. */
function isIgnored(rules: Rules[], absolute: string, isDir: boolean): boolean {
  let ignored = false;
  for (const { base, matcher } of rules) {
    const rel = relative(base, absolute).split(sep).join('/');
    const verdict = matcher.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Every file under `root` that may be attached, in a stable (sorted, depth-first) order, with its
 * size, each path joined to `root` as the user wrote it. Symbolic links to directories are not
 * followed (no loops); links to files are.
 */
export function listTextFileCandidates(root: string): Array<{ path: string; size: number }> {
  const files: Array<{ path: string; size: number }> = [];
  const visit = (dir: string, shown: string, rules: Rules[]): void => {
    const own = rulesIn(dir);
    const active = own ? [...rules, own] : rules;
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const absolute = join(dir, entry.name);
      const path = join(shown, entry.name);
      if (entry.isDirectory()) {
        if (!isIgnored(active, absolute, true)) visit(absolute, path, active);
        continue;
      }
      if (isIgnored(active, absolute, false)) continue;
      let size: number;
      try {
        // stat follows a link: a link to a file counts, one to a directory is skipped (no loops).
        const stat = statSync(absolute);
        if (!stat.isFile()) continue;
        size = stat.size;
      } catch {
        continue; // a dangling link
      }
      files.push({ path, size });
    }
  };
  const absoluteRoot = resolve(root);
  visit(absoluteRoot, root, enclosingRules(absoluteRoot));
  return files;
}
