// What `--help` lists and what the README's options tables say, read from the text users see: the
// options of each command as commander prints them, and the README tables' option cells. No list of
// options lives here, so an option added to the program is checked the moment it exists.

/** A command's path below the root (`''` is gatechat itself, `config set` a nested one). */
export type CommandPath = string;

/** `-m, --model <id>`: the flags and the value form, spaced as commander prints them. */
export interface OptionTerm {
  term: string;
  flags: string[];
  value: string;
}

/** Flags are the leading words that start with `-` (`-m,` `--model`); the rest is the value form. */
export function parseTerm(raw: string): OptionTerm {
  const term = raw.replace(/\\\|/g, '|').replace(/\s+/g, ' ').trim();
  const words = term.split(' ');
  const flags: string[] = [];
  while (words.length > 0 && words[0].startsWith('-')) flags.push(words.shift()!.replace(/,$/, ''));
  return { term, flags, value: words.join(' ') };
}

/** The lines of one `Title:` section of commander's help (it ends at the first unindented line). */
function section(help: string, title: string): string[] {
  const lines = help.split('\n');
  const start = lines.indexOf(`${title}:`);
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith(' ')) break;
    out.push(line);
  }
  return out;
}

/** Each option's term: the text before the description column (two spaces), on its first line only. */
export function helpOptions(help: string): OptionTerm[] {
  return section(help, 'Options').flatMap((line) => {
    const match = /^ {2}(-\S.*?)(?: {2,}|\s*$)/.exec(line);
    return match ? [parseTerm(match[1])] : [];
  });
}

/** The subcommands a help text lists, without commander's own `help`. */
export function helpCommands(help: string): string[] {
  return section(help, 'Commands').flatMap((line) => {
    const match = /^ {2}([a-z][\w-]*)/.exec(line);
    return match && match[1] !== 'help' ? [match[1]] : [];
  });
}

/** One option named in a README options table, and the commands it is written for ('*': any). */
export interface ReadmeOption extends OptionTerm {
  scope: CommandPath[] | '*';
  line: number;
}

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/**
 * Every option in the README's options tables: a table headed `| option | …` holds options of any
 * command; one headed `| command | option | …` names the commands of each row (`config set`, `batch`).
 */
export function readmeOptions(readme: string): ReadmeOption[] {
  const out: ReadmeOption[] = [];
  const lines = readme.split('\n');
  let kind: 'option' | 'command' | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.startsWith('|')) {
      kind = null;
      continue;
    }
    const row = cells(line);
    if (kind === null && !(i > 0 && lines[i - 1].startsWith('|'))) {
      // A header row: what the table is decides how its rows are read.
      const first = row[0].toLowerCase();
      kind = first.startsWith('option') ? 'option' : first === 'command' && (row[1] ?? '').toLowerCase().startsWith('option') ? 'command' : null;
      if (kind === null) while (i + 1 < lines.length && lines[i + 1].startsWith('|')) i++;
      continue;
    }
    if (/^[\s:|-]+$/.test(line)) continue; // the separator row
    const scope: ReadmeOption['scope'] = kind === 'command' ? backticked(row[0]).map((c) => c.replace(/^gatechat\s*/, '')) : '*';
    const optionCell = kind === 'command' ? row[1] : row[0];
    for (const text of backticked(optionCell ?? '')) {
      if (text.startsWith('-')) out.push({ ...parseTerm(text), scope, line: i + 1 });
    }
  }
  return out;
}

const key = (option: OptionTerm) => option.flags.find((f) => f.startsWith('--')) ?? option.flags[0];
const named = (path: CommandPath) => (path === '' ? 'gatechat' : `gatechat ${path}`);

/**
 * Where help and README disagree: an option of a command's help that no README row names (a row for
 * that command first, else the general table), or names with another value form; and a README row
 * naming an option no command it is written for has in that form. One line per problem, naming
 * every command it applies to.
 */
export function disagreements(help: ReadonlyMap<CommandPath, OptionTerm[]>, readme: ReadmeOption[]): string[] {
  const byProblem = new Map<string, string[]>();
  const note = (problem: string, path: CommandPath) => byProblem.set(problem, [...(byProblem.get(problem) ?? []), named(path)]);
  for (const [path, options] of help) {
    for (const option of options) {
      const same = readme.filter((r) => r.flags.includes(key(option)));
      const own = same.filter((r) => r.scope !== '*' && r.scope.includes(path));
      const candidates = own.length > 0 ? own : same.filter((r) => r.scope === '*');
      if (candidates.length === 0) note(`${option.term}: no README options table names ${key(option)}`, path);
      else if (!candidates.some((r) => r.term === option.term)) {
        note(`${option.term}: the README says ${candidates.map((r) => `${r.term} (line ${r.line})`).join(', ')}`, path);
      }
    }
  }
  const problems = [...byProblem].map(([problem, paths]) => `${paths.join(', ')} --help: ${problem}`);
  const has = (path: CommandPath, term: string) => help.get(path)?.some((o) => o.term === term) ?? false;
  for (const row of readme) {
    if (row.scope === '*') {
      if (![...help.keys()].some((p) => has(p, row.term))) problems.push(`README line ${row.line}: ${row.term} is in no command's --help`);
      continue;
    }
    for (const path of row.scope) {
      if (!help.has(path)) problems.push(`README line ${row.line}: ${named(path)} is not a command`);
      else if (!has(path, row.term)) problems.push(`README line ${row.line}: ${named(path)} --help has no ${row.term}`);
    }
  }
  return problems;
}
