import { Command } from 'commander';
import { VERSION } from '../version.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const CACHE_HELP = 'prompt caching: cache_control on the system prompt, the last attachment and the last earlier prompt (Messages; on chat for anthropic/ and claude models) (default: off; config: cache)';

/** How to reach the gateway: shared by every command that sends a request. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'gateway base URL; an empty path gets /v1 (config: base-url)')
    .option('--auth <bearer|x-api-key>', 'auth header (default: bearer)')
    .option('-H, --header <"Name: value">', 'extra request header, repeatable', collect)
    .option('--timeout <s>', 'idle timeout between stream events and time to response headers, seconds (default: 120)')
    .option('--connect-timeout <s>', 'TCP/TLS connect timeout, seconds (default: 10)')
    .option('--max-time <s>', 'give up on a request after this many seconds, retries included, however busy the stream (default: none)')
    .option('--retries <n>', 'retries before the first byte of the answer (default: 2)')
    .option('--proxy <url>', 'HTTP(S) proxy, no scheme means http:// (default: HTTPS_PROXY / HTTP_PROXY, honouring NO_PROXY)')
    .option('-p, --profile <name>', 'settings profile (default: default-profile, else none)')
    .option('-v, --verbose', 'request/response diagnostics on stderr, secrets redacted');
}

/**
 * Options shared by the one-shot root command, `chat` and `demo` (SPEC §2). `chat` has no one
 * answer to extract or request to preview, nor several to compare: without `oneShot` it does not take
 * -x or --dry-run, and -m names one model. `demo` records nothing (`saved: false`): its conversations
 * belong to a gateway that is gone when it ends, so it takes none of -c, --cid, --no-save.
 */
export function addChatOptions(command: Command, { oneShot = true, saved = true }: { oneShot?: boolean; saved?: boolean } = {}): Command {
  command
    .option('-m, --model <id>', oneShot ? 'model id or alias (config: model); repeat it to compare models: one prompt to each at once' : 'model id or alias (config: model); one model (compare models one-shot: gatechat -m A -m B "prompt")', collect)
    .option('-t, --temperature <n>', 'sampling temperature, a number ≥ 0 (default: not sent; model ranges differ)')
    .option('--max-tokens <n>', 'maximum output tokens, a positive integer (default: not sent on Chat Completions, 4096 on Messages)')
    .option('--stream', 'stream the answer over SSE (default: on)')
    .option('--no-stream', 'ask for a single JSON response instead of a stream')
    .option('--cache', CACHE_HELP)
    .option('--no-cache', 'no prompt-caching breakpoints, whatever config cache says')
    .option('-s, --system <text>', 'system prompt (default: none)')
    .option('--api <chat|messages>', 'gateway interface (default: chat)')
    .option('--fallback <models>', 'models (ids or aliases, comma-separated) that get the request when the model fails before answering: 429 after retries, 5xx, overloaded, unknown model (default: the model entry\'s fallback)')
    .option('--tools <file>', 'tool definitions: JSON array in Chat Completions form; "x-command" on a definition runs it (SPEC §15)')
    .option('--mcp <name=command|url>', 'an MCP server for this run, repeatable: a command line (stdio) or an http(s) URL; its tools reach the model as name__tool', collect)
    .option('--mcp-config <file>', 'MCP servers from a {"mcpServers": {…}} file (the form Claude Desktop and Cursor use)')
    .option('--allow <glob>', 'run tool calls whose name matches without asking (repeatable; * and ? globs: --allow \'fs__read_*\'); scripts and batch deny the rest', collect)
    .option('--max-steps <n>', 'model requests of one prompt in a tool loop; at the limit: one line, exit 10 (default: 10)')
    .option('--tool-timeout <s>', 'a tool call running longer becomes an error result (default: 60)')
    .option('--tool-output-limit <bytes>', 'cap each tool result sent to the model, 64K style suffixes allowed (default: 64K)')
    .option('-o, --option <key=value>', 'extra request body field, repeatable; the value is JSON when it parses, else a string (-o top_p=0.9)', collect)
    .option('-a, --attach <path|->', 'attach a file, image (PNG, JPEG, GIF, WebP), PDF or directory of text files; - reads stdin; repeatable', collect)
    .option('--schema <json|file|fields>', 'ask for JSON matching a schema and check the answer (inline JSON Schema, a file, or fields: "name, age int, tags: short labels"); exit 9 when it does not match');
  if (saved) {
    command
      .option('-c, --continue', 'continue the most recent conversation (its model, api, system prompt … unless given again)')
      .option('--cid <id>', 'continue conversation <id>, or the one whose id starts so (see: gatechat history list)')
      .option('--no-save', 'do not record this exchange (default: recorded)')
      .option('--title <text>', 'name the conversation (default: the first line of its first prompt); with -c or --cid it renames it')
      .option('--context <full|n>', 'earlier turns to send: full sends all, n the last n; default: the oldest left out, with one line, when the model\'s context window would overflow')
      // demo's spending is not real: only runs against the user's gateway take a budget.
      .option('--max-cost <usd>', 'stop starting requests once this run spent this many US dollars (tool loop, compare, chat); one line, exit 11');
  }
  command
    .option('--no-stdin', 'do not read piped stdin')
    .option('--json', 'print one JSON object when done')
    .option('--jsonl', 'print one JSON event per line while streaming')
    .option('--no-reasoning', 'hide reasoning/thinking text (default: shown on stderr)')
    .option('-q, --quiet', 'no spinner or footer on a terminal');
  if (oneShot) {
    command
      .option('-x, --extract', 'print only the first fenced code block of the answer (the whole answer when there is none); the saved answer stays whole; with --json/--jsonl: an "extract" field')
      .option('--dry-run', 'print the request that would be sent (method, URL, headers with secrets masked, body) as JSON and exit 0 without sending')
      .option('-e, --execute', 'shell mode: ask for one command for this OS and shell; on a terminal r runs it, e edits then runs, c copies, d describes, q quits; piped, only the command is printed')
      .option('-T, --template <name>', 'the prompt from a template in the config dir\'s templates/ (see: gatechat template list); its front matter sets model, system …, flags win')
      .option('-P, --param <key=value>', 'a template parameter: fills {{key}}; repeatable ({{input}} is stdin unless given)', collect);
    if (saved) {
      command.option('--retry', 'with -c or --cid, no prompt: ask the last prompt again; with -m another model, both answers kept (the new one is continued)');
    }
  }
  return addConnectionOptions(command);
}

/** `batch`: the one-shot request options as defaults for every line, plus where and how fast. */
export function addBatchOptions(command: Command): Command {
  command
    .option('--output <file>', 'append one JSON line per input line here (default: stdout); rerun with the same file to resume')
    .option('--concurrency <n>', 'lines in flight at once, lowered while the gateway rate-limits (default: 4)')
    .option('-m, --model <id>', 'model or alias for lines without "model" (config: model)', collect)
    .option('-t, --temperature <n>', 'temperature for lines without "temperature" (default: not sent)')
    .option('--max-tokens <n>', 'maximum output tokens for lines without "max_tokens"')
    .option('-s, --system <text>', 'system prompt for lines without "system"')
    .option('--api <chat|messages>', 'gateway interface (default: chat)')
    .option('--stream', 'stream each answer over SSE (default: on)')
    .option('--no-stream', 'ask for single JSON responses instead of streams')
    .option('--cache', CACHE_HELP)
    .option('--no-cache', 'no prompt-caching breakpoints, whatever config cache says')
    .option('--tools <file>', 'tool definitions for every line: JSON array in Chat Completions form; "x-command" on a definition runs it')
    .option('--mcp <name=command|url>', 'an MCP server for every line, repeatable: a command line (stdio) or an http(s) URL', collect)
    .option('--mcp-config <file>', 'MCP servers from a {"mcpServers": {…}} file')
    .option('--allow <glob>', 'run tool calls whose name matches without asking (repeatable; * and ? globs: --allow \'fs__read_*\'); scripts and batch deny the rest', collect)
    .option('--max-steps <n>', 'model requests of one prompt in a tool loop; at the limit: one line, exit 10 (default: 10)')
    .option('--tool-timeout <s>', 'a tool call running longer becomes an error result (default: 60)')
    .option('--tool-output-limit <bytes>', 'cap each tool result sent to the model, 64K style suffixes allowed (default: 64K)')
    .option('-o, --option <key=value>', 'extra request body field for every line, repeatable; a line\'s "options" add to them', collect)
    .option('--schema <json|file|fields>', 'ask every line for JSON matching a schema and check it (a line\'s "schema" replaces it); a mismatch is an error line, exit 9')
    .option('-a, --attach <path|->', 'attach a file, image, PDF or directory to every line (a line\'s "attach" adds its own); - reads stdin when the input is a file; repeatable', collect)
    .option('--attach-root <dir>', 'a line\'s "attach" (and "schema" file) must lie inside this directory, after symlinks; / allows every path (default: the current directory)')
    .option('--save', 'record each line as a saved conversation (default: not saved in batch)')
    .option('--remote', "run the batch on the gateway's Batch API (files + batches, or messages/batches), about half the price within 24 h; needs --output, where the batch ids are saved (out.jsonl.batches)")
    .option('--detach', 'with --remote: submit, print the batch ids and exit; rerun the same command later to collect the results')
    .option('--max-cost <usd>', 'stop starting lines once the batch spent this many US dollars (those in flight finish); one line, exit 11');
  return addConnectionOptions(command);
}

export interface RawBatchOptions {
  output?: string;
  remote?: boolean;
  detach?: boolean;
  concurrency?: string;
  attachRoot?: string;
}

/** Raw commander values; validated by flags.ts, never trusted as parsed. */
export interface RawChatOptions {
  model?: string[];
  temperature?: string;
  maxTokens?: string;
  stream?: boolean;
  cache?: boolean;
  system?: string;
  api?: string;
  baseUrl?: string;
  auth?: string;
  header?: string[];
  tools?: string;
  mcp?: string[];
  mcpConfig?: string;
  allow?: string[];
  maxSteps?: string;
  context?: string;
  fallback?: string;
  maxCost?: string;
  toolTimeout?: string;
  toolOutputLimit?: string;
  option?: string[];
  attach?: string[];
  schema?: string;
  continue?: boolean;
  cid?: string;
  save?: boolean;
  stdin?: boolean;
  json?: boolean;
  jsonl?: boolean;
  reasoning?: boolean;
  timeout?: string;
  connectTimeout?: string;
  maxTime?: string;
  retries?: string;
  proxy?: string;
  profile?: string;
  quiet?: boolean;
  verbose?: boolean;
  extract?: boolean;
  dryRun?: boolean;
  template?: string;
  param?: string[];
  execute?: boolean;
  title?: string;
  retry?: boolean;
}

export function createRootCommand(): Command {
  const program = new Command('gatechat')
    .description('Chat with a model gateway over Chat Completions or Messages: interactive, piped or from scripts.')
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .argument('[prompt...]', 'the prompt (joined with spaces)')
    .showSuggestionAfterError(true)
    .allowExcessArguments(true);
  addChatOptions(program);
  program.addHelpText(
    'after',
    '\nExamples:\n' +
      '  gatechat "question"                   one-shot: stream the answer, then exit\n' +
      '  cat notes.md | gatechat "summarize"   stdin first, a blank line, then the prompt\n' +
      '  gatechat --json "hi" | jq -r .text    one JSON object for scripts (--jsonl: one event per line)\n' +
      '  gatechat                              interactive chat when stdin and stdout are terminals\n' +
      '  gatechat -a shot.png "what is wrong?"  attach files, images, PDFs or a directory (repeatable)\n' +
      '  gatechat --schema \'title, year int\' "a film" | jq .title   JSON matching a schema, checked (exit 9 if not)\n' +
      '  gatechat demo "hello"                 try it against the embedded dev gateway, no account needed\n' +
      '  gatechat -x "a script that …" > s.sh  only the first fenced code block of the answer\n' +
      '  gatechat --dry-run -o top_p=0.9 "hi"  the exact request as JSON (secrets masked); nothing is sent\n' +
      '  gatechat -m A -m B "question"         compare: the same prompt to each model at once\n' +
      '\nOptions may also come before a subcommand (gatechat -p work models); after --, every word is prompt text.\n' +
      '\nExit codes: 0 ok · 1 internal error · 2 usage/config · 3 auth rejected · 4 request rejected · ' +
      '5 rate limited · 6 gateway error · 7 network/timeout · 8 stream cut short · 9 answer does not match --schema · 10 tool loop stopped at --max-steps · 11 budget reached (--max-cost, budget-daily) · 130 interrupted · 143 terminated\n' +
      'Configuration: gatechat config set base-url https://gateway/v1 · gatechat config set api-key (reads stdin or prompts)\n' +
      'Environment: GATECHAT_BASE_URL, GATECHAT_API_KEY, GATECHAT_MODEL, GATECHAT_PROFILE, GATECHAT_CONFIG_DIR, GATECHAT_DATA_DIR, NO_COLOR, HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS\n' +
      'Shell completion: source <(gatechat completion bash)   (or zsh; fish: gatechat completion fish | source)',
  );
  return program;
}
