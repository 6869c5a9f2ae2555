import { SUBCOMMAND_NAMES } from './command-line.js';
import type { OptionSources } from './flags.js';
import { chatOptionRows, flagShape, longNameStart, type FlagShape, type OptionRow } from './option-table.js';
import type { RawChatOptions } from './program.js';

// The plain one-shot's command line (`gatechat --base-url URL -m MODEL --no-save "prompt"`), read without
// commander: loading commander and building the root command's ~60 options cost a piped one-shot 3.5–5 ms
// on Node 22 and 24, its largest piece beyond a minimal node:http client (SPEC §10). Only lines it is
// sure of are read here: any word it does not know as the root command's (an unknown option, `-qv`,
// `-mecho`, `--`, `--version`, `--help`, a value missing) and any line with a word naming a subcommand
// is left to commander (main.ts), so every message, suggestion and help text stays commander's.
// test/cli/fast-line.test.ts holds the two readers to the same result.

/** A plain one-shot command line: the options as commander's opts() has them, and where each came from. */
export interface PlainLine extends OptionSources {
  options: RawChatOptions;
  /** The prompt words, in order. */
  prompt: string[];
}

interface RootOption extends FlagShape {
  repeatable: boolean;
}

let rows: OptionRow[] | undefined;
/** The root command's rows (option-table.ts, as program.ts gives them to commander), made once. */
const rootRows = (): OptionRow[] => (rows ??= chatOptionRows({ oneShot: true, saved: true }));

/**
 * The root command's option (option-table.ts, as program.ts gives them to commander) named `-m` or
 * `--model`. A scan of the rows' flags strings for the few words of a line, not a map of every row's
 * shape built first (readPlainLine's first call in the built binary: 0.35 ms with the map, 0.17 ms so).
 */
function optionNamed(name: string): RootOption | undefined {
  for (const row of rootRows()) {
    const flags = row.flags;
    // `-m, --model <id>`: the short name, then `, `; the long one ends the string or meets a space.
    const start = name[1] === '-' ? longNameStart(flags) : 0;
    if (!flags.startsWith(name, start)) continue;
    const after = flags[start + name.length];
    if (after === undefined || after === ' ' || (after === ',' && start === 0 && name[1] !== '-')) return { ...flagShape(flags), repeatable: Boolean(row.repeatable) };
  }
  return undefined;
}

/** The line read as commander would read it for the root command, or undefined when commander should read it. */
export function readPlainLine(args: readonly string[]): PlainLine | undefined {
  // A word naming a subcommand, wherever it is (commander decides whether it is one). Help flags
  // (-h, --help, -vh) are words this reader does not know, so they are declined below.
  if (args[0] === '__complete' || args.some((arg) => SUBCOMMAND_NAMES.includes(arg))) return undefined;
  const values: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  // Commander's defaults: `--no-save` with no `--save` beside it makes save true until one is typed.
  for (const row of rootRows()) {
    if (!row.flags.startsWith('--no-')) continue;
    const option = flagShape(row.flags);
    if (!optionNamed(`--${option.long.slice(5)}`)) {
      values[option.attribute] = true;
      sources[option.attribute] = 'default';
    }
  }
  const prompt: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    // `-` alone is a word (commander's maybeOption needs two characters).
    if (arg.length < 2 || arg[0] !== '-') {
      prompt.push(arg);
      continue;
    }
    // `--name=value`: commander's form needs a name before the `=`.
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const option = optionNamed(equals > 2 ? arg.slice(0, equals) : arg);
    if (!option) return undefined;
    let value: string | undefined;
    if (equals > 2) {
      if (!option.takesValue) return undefined;
      value = arg.slice(equals + 1);
    } else if (option.takesValue) {
      // The next word, whatever it is (`-s -x` is the system prompt "-x"), as commander takes it.
      if (i + 1 >= args.length) return undefined;
      value = args[++i];
    }
    if (value === undefined) values[option.attribute] = !option.negate;
    else values[option.attribute] = option.repeatable ? [...((values[option.attribute] as string[] | undefined) ?? []), value] : value;
    sources[option.attribute] = 'cli';
  }
  return { options: values as RawChatOptions, prompt, getOptionValueSource: (name) => sources[name] };
}
