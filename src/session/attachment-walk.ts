import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
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
  // Stryker disable next-line ArrayDeclaration: equivalent — a stray relative name in the chain is one more .gitignore lookup that finds none
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

export interface DirectoryListing {
  /** What may be attached, each path joined to `root` as the user wrote it. */
  files: Array<{ path: string; size: number }>;
  /** Links not followed because they leave `root` or lead to what would not be attached (paths relative to `root`). */
  skippedLinks: string[];
}

type Slot = { kind: 'file'; path: string; size: number } | { kind: 'link'; path: string; absolute: string; rel: string };

/**
 * Every file under `root` that may be attached, in a stable (sorted, depth-first) order, with its size.
 * A symbolic link is followed only to a file that is attached itself (SPEC §20): inside `root`, not
 * hidden, not ignored. So a repository someone sent with `notes.md -> ~/.config/gatechat/config.json`
 * or `config.txt -> .env` attaches neither; such links are reported. A link to a directory inside
 * `root` is left alone quietly (no loops; its files come through their own path), so is a dangling one.
 */
export function listTextFileCandidates(root: string): DirectoryListing {
  // Stryker disable next-line ArrayDeclaration: equivalent — a stray non-slot has no path: realpath throws and it is passed over like a dangling link
  const slots: Slot[] = [];
  const absoluteRoot = resolve(root);
  const realRoot = realpathSync(absoluteRoot);
  // Real paths of the regular files the walk attaches: what a link may lead to. The walk enters no
  // linked directory, so a file's real path is the real root joined with its path below the root.
  const attachable = new Set<string>();
  const visit = (dir: string, shown: string, rules: Rules[]): void => {
    const own = rulesIn(dir);
    const active = own ? [...rules, own] : rules;
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      // Stryker disable next-line EqualityOperator: equivalent — the names in one directory are unique, so < and <= agree
      a.name < b.name
        ? -1
        : // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — names are unique, and V8's sort only asks whether a result is below 0, so 1 and 0 both mean "not before"
          a.name > b.name
          ? 1
          : 0,
    );
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const absolute = join(dir, entry.name);
      const path = join(shown, entry.name);
      if (entry.isDirectory()) {
        if (!isIgnored(active, absolute, true)) visit(absolute, path, active);
        continue;
      }
      // git keeps a link as a file of its own: its name is matched as a file's.
      if (isIgnored(active, absolute, false)) continue;
      const rel = relative(absoluteRoot, absolute);
      if (entry.isSymbolicLink()) {
        // Stryker disable next-line StringLiteral: equivalent — the tag is only ever compared with 'file'
        slots.push({ kind: 'link', path, absolute, rel });
        continue;
      }
      let size: number;
      try {
        const stat = statSync(absolute);
        if (!stat.isFile()) continue;
        size = stat.size;
      } catch {
        continue; // gone since it was listed
      }
      attachable.add(join(realRoot, rel));
      slots.push({ kind: 'file', path, size });
    }
  };
  visit(absoluteRoot, root, enclosingRules(absoluteRoot));

  const files: DirectoryListing['files'] = [];
  const skippedLinks: string[] = [];
  for (const slot of slots) {
    if (slot.kind === 'file') {
      files.push(slot);
      continue;
    }
    let target: string;
    let stat;
    try {
      target = realpathSync(slot.absolute);
      stat = statSync(target);
    } catch {
      continue; // dangling: leads nowhere, reveals nothing
    }
    const inside = target === realRoot || target.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
    if (stat.isFile() && attachable.has(target)) files.push({ path: slot.path, size: stat.size });
    else if (!(stat.isDirectory() && inside)) skippedLinks.push(slot.rel.split(sep).join('/'));
  }
  return { files, skippedLinks };
}
