/** Slash commands: the table, parsing, "did you mean", Tab completion. Pure. */

export interface CommandSpec {
  name: string;
  args: string;
  help: string;
  /** The help on a dumb terminal (line mode), where it differs; null: not there at all. */
  lineHelp?: string | null;
  /** Listed by /help only when tools can run (SPEC §15). */
  withTools?: true;
}

export const COMMANDS: readonly CommandSpec[] = [
  { name: 'help', args: '', help: 'commands and keys' },
  { name: 'model', args: '<id|alias>', help: 'switch model; Tab completes ids and aliases (no argument: show it)', lineHelp: 'switch model (no argument: show it)' },
  { name: 'models', args: '[filter]', help: 'list the aliases and the gateway\'s model ids' },
  { name: 'temperature', args: '<n|off>', help: 'set or clear the temperature' },
  { name: 'system', args: '<text|off>', help: 'set or clear the system prompt' },
  { name: 'api', args: '<chat|messages>', help: 'switch interface' },
  { name: 'stream', args: '<on|off>', help: 'streaming on or off' },
  { name: 'max-tokens', args: '<n|off>', help: "limit each answer's length (off: the model's default)" },
  { name: 'reasoning', args: '[on|off]', help: 'show or fold reasoning (also Ctrl-R)', lineHelp: 'show or hide reasoning' },
  { name: 'retry', args: '[-m <model>]', help: 'ask the last prompt again, replacing its answer; -m: another model, both answers kept' },
  { name: 'compact', args: '[instructions]', help: 'summarise the conversation so far; later requests send the summary in place of its turns (they stay saved)' },
  { name: 'clear', args: '', help: 'start a new conversation' },
  { name: 'attach', args: '<path|clear>', help: 'attach a file, image, PDF or directory to the next message (or @path in it)' },
  { name: 'template', args: '<name> …', help: 'apply a template: front matter to the chat, body to the input box', lineHelp: null },
  { name: 'save', args: '<file>', help: 'write the conversation as Markdown (/save! overwrites a file)' },
  { name: 'copy', args: '', help: 'copy the last answer (OSC 52: works over SSH and tmux)', lineHelp: null },
  { name: 'edit', args: '[text]', help: 'write the prompt in $VISUAL / $EDITOR; it comes back here for review', lineHelp: null },
  { name: 'tools', args: '[on|off]', help: 'the runnable tools and whether each asks; off / on: stop / resume sending them', lineHelp: null, withTools: true },
  { name: 'exit', args: '', help: 'leave (also Ctrl-D, or Ctrl-C twice)' },
];

export type CommandName =
  | 'help'
  | 'model'
  | 'models'
  | 'temperature'
  | 'system'
  | 'api'
  | 'stream'
  | 'max-tokens'
  | 'reasoning'
  | 'retry'
  | 'compact'
  | 'clear'
  | 'attach'
  | 'template'
  | 'save'
  | 'copy'
  | 'edit'
  | 'tools'
  | 'exit';

const ALIASES: Record<string, CommandName> = { quit: 'exit', q: 'exit', '?': 'help', temp: 'temperature' };

export type ParsedInput =
  | { kind: 'prompt'; text: string }
  /** `force`: the command was typed with a `!` (`/save!` overwrites). */
  | { kind: 'command'; name: CommandName; arg: string; force?: true }
  | { kind: 'unknown'; name: string; suggestion: string | null };

/** Commands that take a `!`. */
const FORCEABLE: ReadonlySet<CommandName> = new Set(['save']);

/** "//text" sends "/text" as a prompt; a lone "/" or a path-like "/usr/bin …" is a command attempt. */
export function parseInput(text: string): ParsedInput {
  if (!text.startsWith('/')) return { kind: 'prompt', text };
  if (text.startsWith('//')) return { kind: 'prompt', text: text.slice(1) };
  const match = /^\/(\S*?)(!?)(?:\s+|$)([\s\S]*)$/.exec(text)!;
  const name = match[1]!.toLowerCase();
  const arg = match[3]!.trim();
  const known = COMMANDS.find((c) => c.name === name)?.name as CommandName | undefined;
  const resolved = known ?? ALIASES[name];
  if (resolved && match[2] && FORCEABLE.has(resolved)) return { kind: 'command', name: resolved, arg, force: true };
  if (resolved && !match[2]) return { kind: 'command', name: resolved, arg };
  return { kind: 'unknown', name: `${name}${match[2]}`, suggestion: closestCommand(name) };
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

export function closestCommand(name: string): string | null {
  if (!name) return null;
  if (ALIASES[name]) return ALIASES[name];
  const prefixed = COMMANDS.filter((c) => c.name.startsWith(name));
  if (prefixed.length === 1) return prefixed[0]!.name;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of COMMANDS) {
    const d = editDistance(name, c.name);
    if (d < bestDistance) {
      best = c.name;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 2)) ? best : null;
}

/** One match completes (then a space); several complete to their common prefix and are listed. */
function completeFrom(typed: string, names: readonly string[], lead: string): { value: string; candidates: string[] } {
  const candidates = [...new Set(names)].filter((n) => n.startsWith(typed));
  if (candidates.length === 0) return { value: `${lead}${typed}`, candidates };
  if (candidates.length === 1) return { value: `${lead}${candidates[0]} `, candidates };
  let prefix = candidates[0]!;
  for (const c of candidates) {
    while (!c.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return { value: `${lead}${prefix}`, candidates };
}

/** A model name being typed: after `/model ` or `/retry -m ` (group 1: what is typed of it). */
export const MODEL_ARGUMENT = /^\/(?:model|retry\s+(?:-m|--model))\s+(\S*)$/;

/**
 * Tab on "/mo" → "/mode"; on "/model gp" → the model ids and aliases that start with "gp"
 * (`modelNames`). Returns null when the input is neither a command name nor a model being typed.
 */
export function completeCommand(value: string, modelNames?: () => readonly string[]): { value: string; candidates: string[] } | null {
  const model = MODEL_ARGUMENT.exec(value);
  if (model && modelNames) return completeFrom(model[1]!, modelNames(), value.slice(0, value.length - model[1]!.length));
  const match = /^\/(\S*)$/.exec(value);
  if (!match) return null;
  const typed = match[1]!.toLowerCase();
  return completeFrom(typed, COMMANDS.map((c) => c.name), '/');
}

/** How many completions the status line lists: a gateway may offer hundreds of model ids. */
const CANDIDATES_SHOWN = 12;

/**
 * What Tab does to the input: the completed value, and the line the status bar shows (the candidates
 * when several match, a pointer to /help or /models when none does). Null: Tab does nothing here.
 */
export function tabCompletion(value: string, modelNames?: () => readonly string[]): { value: string; hint: string | null } | null {
  const completion = completeCommand(value, modelNames);
  if (!completion) return null;
  const naming = /^\/(?:model|retry)\s/.test(value);
  const { candidates } = completion;
  if (candidates.length === 0) {
    return { value: completion.value, hint: naming ? 'no alias or known model id starts with that: /models lists them' : 'no command starts with that: /help lists them' };
  }
  if (candidates.length === 1) return { value: completion.value, hint: null };
  const shown = candidates.slice(0, CANDIDATES_SHOWN).map((c) => (naming ? c : `/${c}`));
  const more = candidates.length > shown.length ? `  … ${candidates.length - shown.length} more` : '';
  return { value: completion.value, hint: `${shown.join('  ')}${more}` };
}

/** The notice for a `/name` that is no command, with the closest one when there is one. */
export function unknownCommandNotice(input: Extract<ParsedInput, { kind: 'unknown' }>): string {
  const guess = input.suggestion ? ` — did you mean /${input.suggestion}?` : '';
  return `unknown command /${input.name}${guess} (/help lists commands · //${input.name} sends it as text)`;
}

/** A hint written for the command line, said the chat's way (`gatechat models` → `/models`). */
export function inChatHint(hint: string): string {
  return hint.replace(/\bgatechat models\b/g, '/models');
}

const TERMINAL_KEYS = [
  '  Enter send · Alt+Enter / Shift+Enter / Ctrl-J or a trailing \\ new line · Up/Down rows, then history',
  '  Esc or Ctrl-C cancel an answer · Ctrl-C clears the prompt, twice on empty exits · Ctrl-D exits',
  '  Ctrl-A/E line start/end · Alt+b/f or Ctrl+Left/Right word · Ctrl-U/K kill to start/end',
  '  Alt+Backspace / Alt+d delete a word (stops at punctuation) · Ctrl-W delete back to a space',
  '  Ctrl-G or Ctrl-X Ctrl-E edit the prompt in $EDITOR · Ctrl-L redraw · Ctrl-Z suspend (fg resumes)',
  '  Tab completes commands, /model and /template names and paths (after /attach, /save, @) · Ctrl-R shows or folds reasoning',
  '  @path attaches a file (\\@ is a literal @) · //text sends a prompt that starts with "/"',
];

// TERM=dumb: the terminal's own line editing reads each line; only these keys mean anything.
const LINE_KEYS = [
  '  Enter send · a trailing \\ continues on the next line · Backspace, Ctrl-U, Ctrl-W edit the line',
  '  Ctrl-C cancels an answer, twice at the prompt exits · Ctrl-D exits',
  '  @path attaches a file (\\@ is a literal @) · //text sends a prompt that starts with "/"',
];

/** /help: the commands and the keys of the full terminal UI, or of line mode (TERM=dumb). */
export function helpText(mode: 'terminal' | 'line' = 'terminal', options: { tools?: boolean } = {}): string {
  const shown = COMMANDS.filter((c) => !c.withTools || options.tools).flatMap((c) => {
    const help = mode === 'line' && c.lineHelp !== undefined ? c.lineHelp : c.help;
    return help === null ? [] : [{ usage: `/${c.name} ${c.args}`, help }];
  });
  const width = Math.max(...shown.map((c) => c.usage.length));
  return ['Commands:', ...shown.map((c) => `  ${c.usage.padEnd(width)}  ${c.help}`), 'Keys:', ...(mode === 'line' ? LINE_KEYS : TERMINAL_KEYS)].join('\n');
}
