// The options of the commands that send a chat request, as data: program.ts builds commander's options
// from these tables (help, every subcommand, every error message), and fast-line.ts reads the plain
// one-shot's command line from the same rows without loading commander. One list, two readers: an
// option added here is known to both, and test/cli/fast-line.test.ts holds the two to the same result.

/** One option: commander's flags string (`-m, --model <id>`, `--no-save`) and its help text. */
export interface OptionRow {
  flags: string;
  description: string;
  /** Each use adds its value to a list (commander: the `collect` parser). */
  repeatable?: boolean;
  /**
   * Which of the chat commands take it (absent: all three). `saved`: those that record conversations
   * (the root and `chat`, not `demo`); `one-shot`: those with one answer (the root and `demo`, not `chat`);
   * `one-shot-saved`: the root alone.
   */
  only?: 'saved' | 'one-shot' | 'one-shot-saved';
  /** `chat`'s own help text, where it differs (`chat` talks to one model). */
  chatDescription?: string;
}

export const CACHE_HELP =
  'prompt caching: cache_control on the system prompt, the last attachment and the last earlier prompt (Messages; on chat for anthropic/ and claude models) (default: off; config: cache)';

/** How to reach the gateway: every command that sends a request (addConnectionOptions). */
export const CONNECTION_OPTIONS: readonly OptionRow[] = [
  { flags: '--base-url <url>', description: 'gateway base URL; an empty path gets /v1 (config: base-url)' },
  { flags: '--auth <bearer|x-api-key>', description: 'auth header (default: bearer)' },
  { flags: '-H, --header <"Name: value">', description: 'extra request header, repeatable', repeatable: true },
  { flags: '--timeout <s>', description: 'idle timeout between stream events and time to response headers, seconds (default: 120)' },
  { flags: '--connect-timeout <s>', description: 'TCP/TLS connect timeout, seconds (default: 10)' },
  { flags: '--max-time <s>', description: 'give up on a request after this many seconds, retries included, however busy the stream (default: none)' },
  { flags: '--retries <n>', description: 'retries before the first byte of the answer (default: 2)' },
  { flags: '--proxy <url>', description: 'HTTP(S) proxy, no scheme means http:// (default: HTTPS_PROXY / HTTP_PROXY, honouring NO_PROXY)' },
  { flags: '-p, --profile <name>', description: 'settings profile (default: default-profile, else none)' },
  { flags: '-v, --verbose', description: 'request/response diagnostics on stderr, secrets redacted' },
];

/**
 * The root command's, `chat`'s and `demo`'s options before the connection ones, in help order (SPEC §2).
 * `chat` has no one answer to extract or request to preview, nor several to compare; `demo` records
 * nothing, and its spending is not real (no -c, --cid, --no-save, --max-cost).
 */
export const CHAT_OPTIONS: readonly OptionRow[] = [
  { flags: '-m, --model <id>', description: 'model id or alias (config: model); repeat it to compare models: one prompt to each at once', chatDescription: 'model id or alias (config: model); one model (compare models one-shot: gatechat -m A -m B "prompt")', repeatable: true },
  { flags: '-t, --temperature <n>', description: 'sampling temperature, a number ≥ 0 (default: not sent; model ranges differ)' },
  { flags: '--max-tokens <n>', description: 'maximum output tokens, a positive integer (default: not sent on Chat Completions, 4096 on Messages)' },
  { flags: '--stream', description: 'stream the answer over SSE (default: on)' },
  { flags: '--no-stream', description: 'ask for a single JSON response instead of a stream' },
  { flags: '--cache', description: CACHE_HELP },
  { flags: '--no-cache', description: 'no prompt-caching breakpoints, whatever config cache says' },
  { flags: '-s, --system <text>', description: 'system prompt (default: none)' },
  { flags: '--api <chat|messages>', description: 'gateway interface (default: chat)' },
  { flags: '--fallback <models>', description: 'models (ids or aliases, comma-separated) that get the request when the model fails before answering: 429 after retries, 5xx, overloaded, unknown model (default: the model entry\'s fallback)' },
  { flags: '--tools <file>', description: 'tool definitions: JSON array in Chat Completions form; "x-command" on a definition runs it (SPEC §15)' },
  { flags: '--mcp <name=command|url>', description: 'an MCP server for this run, repeatable: a command line (stdio) or an http(s) URL; its tools reach the model as name__tool', repeatable: true },
  { flags: '--mcp-config <file>', description: 'MCP servers from a {"mcpServers": {…}} file (the form Claude Desktop and Cursor use)' },
  { flags: '--allow <glob>', description: 'run tool calls whose name matches without asking (repeatable; * and ? globs: --allow \'fs__read_*\'); scripts and batch deny the rest', repeatable: true },
  { flags: '--max-steps <n>', description: 'model requests of one prompt in a tool loop; at the limit: one line, exit 10 (default: 10)' },
  { flags: '--tool-timeout <s>', description: 'a tool call running longer becomes an error result (default: 60)' },
  { flags: '--tool-output-limit <bytes>', description: 'cap each tool result sent to the model, 64K style suffixes allowed (default: 64K)' },
  { flags: '-o, --option <key=value>', description: 'extra request body field, repeatable; the value is JSON when it parses, else a string (-o top_p=0.9)', repeatable: true },
  { flags: '-a, --attach <path|->', description: 'attach a file, image (PNG, JPEG, GIF, WebP), PDF or directory of text files; - reads stdin; repeatable', repeatable: true },
  { flags: '--schema <json|file|fields>', description: 'ask for JSON matching a schema and check the answer (inline JSON Schema, a file, or fields: "name, age int, tags: short labels"); exit 9 when it does not match' },
  { flags: '-c, --continue', description: 'continue the most recent conversation (its model, api, system prompt … unless given again)', only: 'saved' },
  { flags: '--cid <id>', description: 'continue conversation <id>, or the one whose id starts so (see: gatechat history list)', only: 'saved' },
  { flags: '--no-save', description: 'do not record this exchange (default: recorded)', only: 'saved' },
  { flags: '--title <text>', description: 'name the conversation (default: the first line of its first prompt); with -c or --cid it renames it', only: 'saved' },
  { flags: '--context <full|n>', description: 'earlier turns to send: full sends all, n the last n; default: the oldest left out, with one line, when the model\'s context window would overflow', only: 'saved' },
  { flags: '--max-cost <usd>', description: 'stop starting requests once this run spent this many US dollars (tool loop, compare, chat); one line, exit 11', only: 'saved' },
  { flags: '--no-stdin', description: 'do not read piped stdin' },
  { flags: '--json', description: 'print one JSON object when done' },
  { flags: '--jsonl', description: 'print one JSON event per line while streaming' },
  { flags: '--no-reasoning', description: 'hide reasoning/thinking text (default: shown on stderr)' },
  { flags: '-q, --quiet', description: 'no spinner or footer on a terminal' },
  { flags: '-x, --extract', description: 'print only the first fenced code block of the answer (the whole answer when there is none); the saved answer stays whole; with --json/--jsonl: an "extract" field', only: 'one-shot' },
  { flags: '--dry-run', description: 'print the request that would be sent (method, URL, headers with secrets masked, body) as JSON and exit 0 without sending', only: 'one-shot' },
  { flags: '-e, --execute', description: 'shell mode: ask for one command for this OS and shell; on a terminal r runs it, e edits then runs, c copies, d describes, q quits; piped, only the command is printed', only: 'one-shot' },
  { flags: '-T, --template <name>', description: 'the prompt from a template in the config dir\'s templates/ (see: gatechat template list); its front matter sets model, system …, flags win', only: 'one-shot' },
  { flags: '-P, --param <key=value>', description: 'a template parameter: fills {{key}}; repeatable ({{input}} is stdin unless given)', repeatable: true, only: 'one-shot' },
  { flags: '--retry', description: 'with -c or --cid, no prompt: ask the last prompt again; with -m another model, both answers kept (the new one is continued)', only: 'one-shot-saved' },
];

/** `batch`: the one-shot request options as defaults for every line, plus where and how fast (then the connection ones). */
export const BATCH_OPTIONS: readonly OptionRow[] = [
  { flags: '--output <file>', description: 'append one JSON line per input line here (default: stdout); rerun with the same file to resume' },
  { flags: '--concurrency <n>', description: 'lines in flight at once, lowered while the gateway rate-limits (default: 4)' },
  { flags: '-m, --model <id>', description: 'model or alias for lines without "model" (config: model)', repeatable: true },
  { flags: '-t, --temperature <n>', description: 'temperature for lines without "temperature" (default: not sent)' },
  { flags: '--max-tokens <n>', description: 'maximum output tokens for lines without "max_tokens"' },
  { flags: '-s, --system <text>', description: 'system prompt for lines without "system"' },
  { flags: '--api <chat|messages>', description: 'gateway interface (default: chat)' },
  { flags: '--stream', description: 'stream each answer over SSE (default: on)' },
  { flags: '--no-stream', description: 'ask for single JSON responses instead of streams' },
  { flags: '--cache', description: CACHE_HELP },
  { flags: '--no-cache', description: 'no prompt-caching breakpoints, whatever config cache says' },
  { flags: '--tools <file>', description: 'tool definitions for every line: JSON array in Chat Completions form; "x-command" on a definition runs it' },
  { flags: '--mcp <name=command|url>', description: 'an MCP server for every line, repeatable: a command line (stdio) or an http(s) URL', repeatable: true },
  { flags: '--mcp-config <file>', description: 'MCP servers from a {"mcpServers": {…}} file' },
  { flags: '--allow <glob>', description: 'run tool calls whose name matches without asking (repeatable; * and ? globs: --allow \'fs__read_*\'); scripts and batch deny the rest', repeatable: true },
  { flags: '--max-steps <n>', description: 'model requests of one prompt in a tool loop; at the limit: one line, exit 10 (default: 10)' },
  { flags: '--tool-timeout <s>', description: 'a tool call running longer becomes an error result (default: 60)' },
  { flags: '--tool-output-limit <bytes>', description: 'cap each tool result sent to the model, 64K style suffixes allowed (default: 64K)' },
  { flags: '-o, --option <key=value>', description: 'extra request body field for every line, repeatable; a line\'s "options" add to them', repeatable: true },
  { flags: '--schema <json|file|fields>', description: 'ask every line for JSON matching a schema and check it (a line\'s "schema" replaces it); a mismatch is an error line, exit 9' },
  { flags: '-a, --attach <path|->', description: 'attach a file, image, PDF or directory to every line (a line\'s "attach" adds its own); - reads stdin when the input is a file; repeatable', repeatable: true },
  { flags: '--attach-root <dir>', description: 'a line\'s "attach" (and "schema" file) must lie inside this directory, after symlinks; / allows every path (default: the current directory)' },
  { flags: '--save', description: 'record each line as a saved conversation (default: not saved in batch)' },
  { flags: '--remote', description: "run the batch on the gateway's Batch API (files + batches, or messages/batches), about half the price within 24 h; needs --output, where the batch ids are saved (out.jsonl.batches)" },
  { flags: '--detach', description: 'with --remote: submit, print the batch ids and exit; rerun the same command later to collect the results' },
  { flags: '--max-cost <usd>', description: 'stop starting lines once the batch spent this many US dollars (those in flight finish); one line, exit 11' },
];

/** Which of the chat commands: the root (one-shot, saved), `chat` (not one-shot), `demo` (not saved). */
export interface ChatCommandKind {
  oneShot: boolean;
  saved: boolean;
}

/** The rows a chat command takes, in help order, the connection options last. */
export function chatOptionRows({ oneShot, saved }: ChatCommandKind): OptionRow[] {
  const takes = (row: OptionRow) =>
    row.only === undefined || (row.only === 'saved' ? saved : row.only === 'one-shot' ? oneShot : oneShot && saved);
  return [...CHAT_OPTIONS.filter(takes), ...CONNECTION_OPTIONS];
}

/** What a flags string says, read as commander reads it (its splitOptionFlags and Option). */
export interface FlagShape {
  /** `-m`, if it has one. */
  short?: string;
  /** `--model`, `--no-save`. */
  long: string;
  /** `<id>`: the next word (or what follows `=`) is its value. */
  takesValue: boolean;
  /** `--no-save`: sets `save` to false. */
  negate: boolean;
  /** The key in the parsed options: `--max-tokens` → maxTokens, `--no-save` → save. */
  attribute: string;
}

/** Where the long name starts in a flags string: `--model <id>` at 0, `-m, --model <id>` after `-m, `. */
export function longNameStart(flags: string): number {
  return flags.startsWith('--') ? 0 : flags.indexOf(', --') + 2;
}

/**
 * `-m, --model <id>` → { short: '-m', long: '--model', takesValue: true, … }: only the forms the tables
 * use (fast-line.test.ts compares every row with commander's reading). String scans, no regular
 * expression: fast-line.ts reads every row on each plain one-shot start, and a regular expression is
 * compiled again in each process (V8's code cache keeps functions, not regular expressions): ~0.3 ms.
 */
export function flagShape(flags: string): FlagShape {
  const start = longNameStart(flags);
  const space = flags.indexOf(' ', start);
  if (start === 1 || (space >= 0 && flags[space + 1] !== '<')) throw new Error(`option-table: flags of a form it does not read: ${flags}`);
  const long = space < 0 ? flags.slice(start) : flags.slice(start, space);
  const negate = long.startsWith('--no-');
  // --max-tokens → maxTokens, --no-save → save (commander's attributeName).
  let attribute = '';
  for (let i = negate ? 5 : 2; i < long.length; i++) attribute += long[i] === '-' ? long[++i]!.toUpperCase() : long[i];
  return { ...(start > 0 ? { short: flags.slice(0, start - 2) } : {}), long, takesValue: space >= 0, negate, attribute };
}
