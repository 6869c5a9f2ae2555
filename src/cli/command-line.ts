import type { Command, Option } from 'commander';
import { UsageError } from '../exit-codes.js';

// How gatechat reads its command line beyond what commander does by itself. The root command takes
// a prompt and positional options (`enablePositionalOptions`), so without these steps an option
// typed before a subcommand would be parsed by the root and silently dropped, and `--` would not
// stop a prompt word from being taken as a subcommand.

/** `gatechat config set` for the `set` command: what a user types, for messages. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `-p, --profile <name>` → `-p, --profile`. */
const flagNames = (option: Option) =>
  option.flags
    .split(/[ ,|]+/)
    .filter((word) => word.startsWith('-'))
    .join(', ');

/**
 * Options typed before a subcommand (`gatechat -p work config get model`) apply to it when it has
 * the same option, and are refused with one line when it does not: never dropped. The same option
 * after the subcommand wins (it comes later on the line); repeatable ones (-H, -o) add up.
 */
export function carryLeadingOptions(root: Command, target: Command): void {
  if (target === root) return;
  const carried = new Set<string>();
  for (const option of root.options) {
    const name = option.attributeName();
    if (carried.has(name) || root.getOptionValueSource(name) !== 'cli') continue;
    carried.add(name);
    const value: unknown = root.getOptionValue(name);
    // --stream and --no-stream share one value: name the one that was typed.
    const typed = root.options.find((o) => o.attributeName() === name && o.negate === (value === false)) ?? option;
    if (!target.options.some((o) => o.attributeName() === name)) {
      throw new UsageError(`${flagNames(typed)} does not apply to "${commandPath(target)}"`, `see: ${commandPath(target)} --help`);
    }
    if (target.getOptionValueSource(name) !== 'cli') {
      target.setOptionValueWithSource(name, value, 'cli');
    } else {
      const own: unknown = target.getOptionValue(name);
      if (Array.isArray(value) && Array.isArray(own)) target.setOptionValueWithSource(name, [...value, ...own], 'cli');
    }
  }
}

/** The root command's subcommands, in the order main.ts adds them (a test holds this to `gatechat --help`). */
export const SUBCOMMAND_NAMES: readonly string[] = ['chat', 'config', 'tools', 'models', 'history', 'usage', 'template', 'serve', 'demo', 'batch', 'completion', 'help'];

/**
 * Whether commander could reach a subcommand on this line: a word naming one (it might be the first
 * operand), or help asked for (`-h`, `--help`, `-vh`), whose text lists them. When not, the root command
 * alone is built. Errs towards building them: `-m chat "hi"` or a prompt word `-h` builds them all too.
 */
export function mayNameSubcommand(args: readonly string[]): boolean {
  return args.some((arg) => SUBCOMMAND_NAMES.includes(arg) || arg.startsWith('--h') || /^-[^-]*h/.test(arg));
}

/**
 * `gatechat -- history of rome`: everything after a `--` that comes before any subcommand name is
 * prompt text. Commander would still dispatch `history` from there, so those words are taken off the
 * line before parsing and handed to the root command as prompt words.
 */
export function splitTrailingPrompt(args: string[], commandNames: readonly string[]): { args: string[]; prompt: string[] } {
  const end = args.indexOf('--');
  if (end < 0 || args.slice(0, end).some((arg) => commandNames.includes(arg))) return { args, prompt: [] };
  return { args: args.slice(0, end), prompt: args.slice(end + 1) };
}

/**
 * Commander's parse errors as one line: `unknown option '--modle' (did you mean --model?)`, and a
 * pointer to the command's help when it has no suggestion.
 */
export function formatParseError(text: string, command: Command): string {
  let line = text.replace(/^error: /, '').replace(/\n+$/, '');
  line = line.replace(/\n\(Did you mean (?:one of )?(.+)\?\)$/, (_, names: string) => ` (did you mean ${orList(names.split(', '))}?)`);
  if (/^unknown option '[^']*'$/.test(line)) line += ` (see: ${commandPath(command)} --help)`;
  return `gatechat: ${line.replace(/\n/g, ' ')}\n`;
}

const orList = (items: string[]) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : items.join(''));

/**
 * `gatechat help config set` → the `config set` command. A word that names no command is a usage
 * error that says how to send it as a prompt instead (`gatechat -- help …`).
 */
export function helpTarget(root: Command, words: readonly string[]): Command {
  let target = root;
  for (const word of words) {
    const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const names = target.commands.map((c) => c.name()).filter((name) => name !== 'help').sort();
      const prompt = ['help', ...words].join(' ');
      throw new UsageError(`help: no command "${word}" (commands: ${names.join(', ')}; to send a prompt starting with "help": gatechat -- ${prompt})`);
    }
    target = next;
  }
  return target;
}

/** Every command, nested ones included, so each reports parse errors with its own name. */
export function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}
