import { Command } from 'commander';
import { VERSION } from '../version.js';
import { BATCH_OPTIONS, chatOptionRows, CONNECTION_OPTIONS, type OptionRow } from './option-table.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Commander options from the rows of option-table.ts, in their order. */
function addRows(command: Command, rows: readonly OptionRow[], description: (row: OptionRow) => string = (row) => row.description): Command {
  for (const row of rows) {
    if (row.repeatable) command.option(row.flags, description(row), collect);
    else command.option(row.flags, description(row));
  }
  return command;
}

/** How to reach the gateway: shared by every command that sends a request. */
export function addConnectionOptions(command: Command): Command {
  return addRows(command, CONNECTION_OPTIONS);
}

/**
 * Options shared by the one-shot root command, `chat` and `demo` (SPEC §2; which take which:
 * option-table.ts). The connection options come last.
 */
export function addChatOptions(command: Command, { oneShot = true, saved = true }: { oneShot?: boolean; saved?: boolean } = {}): Command {
  return addRows(command, chatOptionRows({ oneShot, saved }), (row) => (!oneShot && row.chatDescription) || row.description);
}

/** `batch`: the one-shot request options as defaults for every line, plus where and how fast. */
export function addBatchOptions(command: Command): Command {
  return addConnectionOptions(addRows(command, BATCH_OPTIONS));
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
