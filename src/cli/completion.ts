import type { Command, Option } from 'commander';
import { UsageError } from '../exit-codes.js';

// `gatechat completion bash|zsh|fish` (SPEC §14). The scripts are thin: at each TAB they run
// `gatechat __complete -- <words before the cursor> <current word>`, and this module answers from
// the live commander tree (so commands and options never drift from --help) plus the user's
// profiles, model aliases/entries and the model ids cached by `gatechat models`.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** First line of a `__complete` answer: either the candidates follow, or the shell completes file names. */
export type Directive = ':words' | ':files';

export interface CompletionData {
  profiles(): string[];
  models(): string[];
  templates(): string[];
  configKeys: readonly string[];
}

const FIXED_VALUES: Record<string, readonly string[]> = {
  '--api': ['chat', 'messages'],
  '--auth': ['bearer', 'x-api-key'],
  '--by': ['day', 'model', 'profile'],
};
const MODEL_OPTIONS = new Set(['--model']);
const PROFILE_OPTIONS = new Set(['--profile']);
const TEMPLATE_OPTIONS = new Set(['--template']);
/** Options whose value is a path: the shell's own file completion is best there. */
const FILE_OPTIONS = new Set(['--tools', '--attach', '--schema', '--output']);

function visibleOptions(command: Command): Option[] {
  return command.options.filter((option) => !option.hidden);
}

function findOption(command: Command, word: string): Option | undefined {
  const name = word.split('=')[0]!;
  for (let c: Command | null = command; c; c = c.parent) {
    const found = c.options.find((option) => option.long === name || option.short === name);
    if (found) return found;
  }
  return undefined;
}

const takesValue = (option: Option): boolean => option.required || option.optional;

/** Candidates for the word being typed, given the words before it (program name excluded). */
export function complete(program: Command, words: string[], data: CompletionData): { directive: Directive; candidates: string[] } {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  let command = program;
  const positionals: string[] = [];
  let pendingOption: Option | undefined;
  let afterDashDash = false;
  for (const word of before) {
    if (pendingOption) {
      pendingOption = undefined;
      continue;
    }
    if (!afterDashDash && word === '--') {
      afterDashDash = true;
      continue;
    }
    if (!afterDashDash && word.startsWith('-') && word !== '-') {
      const option = findOption(command, word);
      if (option && takesValue(option) && !word.includes('=')) pendingOption = option;
      continue;
    }
    const sub = positionals.length === 0 && !afterDashDash ? command.commands.find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
    if (sub) command = sub;
    else positionals.push(word);
  }

  const words_ = (list: Iterable<string>, prefix = '') => ({
    directive: ':words' as const,
    candidates: [...new Set(list)].map((c) => prefix + c).filter((c) => c.startsWith(current)).sort(),
  });
  const values = (option: Option, prefix = '') => {
    const long = option.long ?? '';
    if (FILE_OPTIONS.has(long)) return { directive: ':files' as const, candidates: [] };
    if (MODEL_OPTIONS.has(long)) return words_(data.models(), prefix);
    if (PROFILE_OPTIONS.has(long)) return words_(data.profiles(), prefix);
    if (TEMPLATE_OPTIONS.has(long)) return words_(data.templates(), prefix);
    return words_(FIXED_VALUES[long] ?? [], prefix);
  };

  if (pendingOption) return values(pendingOption);
  const inline = afterDashDash ? null : /^(--[^=]+)=/.exec(current);
  if (inline) {
    const option = findOption(command, inline[1]!);
    return option && takesValue(option) ? values(option, inline[0]) : words_([]);
  }
  if (!afterDashDash && current.startsWith('-')) {
    // Options go after their command (positional options), so the command's own are the ones that apply.
    const names = visibleOptions(command).map((option) => option.long ?? option.short ?? '');
    names.push('--help');
    return words_(names);
  }
  const path = commandPath(command);
  if (positionals.length === 0 && command.commands.length > 0) {
    const subs = command.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden).map((c) => c.name());
    // history's own actions are words of its first argument; `compact` alone is a subcommand (its options).
    if (path === 'history') return words_([...HISTORY_ACTIONS, ...subs]);
    // The root command's own positional is a prompt: only subcommands are worth offering.
    return words_(subs);
  }
  switch (path) {
    case 'config set':
    case 'config get':
    case 'config unset':
      return positionals.length === 0 ? words_(data.configKeys) : words_([]);
    case 'completion':
      return positionals.length === 0 ? words_(SHELLS) : words_([]);
    case 'template':
      if (positionals.length === 0) return words_(['list', 'show', 'edit', 'rm']);
      return positionals.length === 1 && positionals[0] !== 'list' ? words_(data.templates()) : words_([]);
    case 'history':
      return positionals.length === 0 ? words_(HISTORY_ACTIONS) : words_([]);
    case 'batch':
      return { directive: ':files', candidates: [] };
    default:
      return words_([]);
  }
}

const HISTORY_ACTIONS = ['list', 'show', 'rm', 'fork'];

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function parseShell(raw: string): Shell {
  const shell = SHELLS.find((s) => s === raw.trim().toLowerCase());
  if (!shell) throw new UsageError(`completion: expected bash, zsh or fish, got ${JSON.stringify(raw)}`);
  return shell;
}

/** The script for one shell; it calls `gatechat` (on PATH) back at each TAB. */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return BASH;
    case 'zsh':
      return ZSH;
    case 'fish':
      return FISH;
    default: {
      const never: never = shell;
      throw new Error(`unknown shell ${String(never)}`);
    }
  }
}

const BASH = `# gatechat completion for bash. Use: source <(gatechat completion bash)
# or save it as ~/.local/share/bash-completion/completions/gatechat
_gatechat_complete() {
  local line=\${COMP_LINE:0:COMP_POINT} words reply directive IFS
  # Split on blanks only (COMP_WORDS also splits on ':' and '=', which model ids contain).
  IFS=$' \\t\\n' read -r -a words <<< "$line"
  [[ $line =~ [[:space:]]$ ]] && words+=("")
  IFS=$'\\n'
  reply=($(gatechat __complete -- "\${words[@]:1}" 2>/dev/null))
  directive=\${reply[0]}
  reply=("\${reply[@]:1}")
  if [[ $directive == :files ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "\${words[-1]}"))
    return
  fi
  # bash replaces only the part of the word after the last COMP_WORDBREAKS character (':' or '=').
  local cur=\${words[-1]} pre=""
  if [[ $cur == *[:=]* ]]; then pre=\${cur%[:=]*}; pre=\${cur:0:\${#pre}+1}; fi
  COMPREPLY=()
  local item
  for item in "\${reply[@]}"; do COMPREPLY+=("\${item#"$pre"}"); done
}
complete -o nosort -F _gatechat_complete gatechat 2>/dev/null || complete -F _gatechat_complete gatechat
`;

const ZSH = `#compdef gatechat
# gatechat completion for zsh. Use (after compinit): source <(gatechat completion zsh)
# or save it as _gatechat in a directory on $fpath
_gatechat() {
  local -a reply
  reply=("\${(@f)$(gatechat __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ \${reply[1]} == :files ]]; then
    _files
  else
    compadd -Q -- "\${(@)reply[2,-1]}"
  fi
}
if (( $+functions[compdef] )); then compdef _gatechat gatechat; fi
`;

const FISH = `# gatechat completion for fish. Use: gatechat completion fish | source
# or save it as ~/.config/fish/completions/gatechat.fish
function __gatechat_complete
    set -l words (commandline -opc) (commandline -ct)
    set -l reply (gatechat __complete -- $words[2..-1] 2>/dev/null)
    if test "$reply[1]" = ":files"
        __fish_complete_path (commandline -ct)
    else
        printf '%s\\n' $reply[2..-1]
    end
end
complete -c gatechat -f -a '(__gatechat_complete)'
`;
