import { Command, CommanderError } from 'commander';
import { ExitCode, UsageError } from '../exit-codes.js';
import { addBatchOptions, addChatOptions, addConnectionOptions, createRootCommand, type RawBatchOptions, type RawChatOptions } from './program.js';
import { validateBatchOptions, validateChatOptions, validateConnectionFlags, type ChatModeOptions, type OptionSources } from './flags.js';
import { allCommands, carryLeadingOptions, formatParseError, helpTarget, mayNameSubcommand, splitTrailingPrompt, SUBCOMMAND_NAMES } from './command-line.js';
import { KEY_NAMES } from '../config/keys.js';
import { MODEL_ENTRY_KEY_NAMES } from '../config/model-entries.js';
import type { Io } from './context.js';

// The command line through commander: every command, help, completion and every parse error's message.
// main.ts loads this module (and commander with it) only for a line fast-line.ts does not read itself.

/** Each action returns its exit code; main() owns process.exit, so no layer below calls it. */
export type Action = () => Promise<number>;

/** What the commands run, from main.ts (which owns the streams, the mode decision and the exit). */
export interface App {
  io: Io;
  /** The root command's action: validate, then a chat or one turn. */
  runRoot(raw: RawChatOptions, sources: OptionSources, prompt: string[]): Promise<number>;
  runChatOrOneShot(options: ChatModeOptions, prompt: string[]): Promise<number>;
  runChat(options: ChatModeOptions, firstPrompt: string | undefined): Promise<number>;
  /** For the error line at the end: with -v, a stack. */
  setVerbose(verbose: boolean): void;
}

const collectValues = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The command line read by commander: the action to run, or the exit code when there is none (help,
 * a parse error: commander has printed it). A usage error thrown while parsing (options before a
 * subcommand that does not take them) is thrown on.
 */
export async function readWithCommander(args: string[], app: App): Promise<Action | number> {
  const complete = args[0] === '__complete';
  const line = complete ? { args, prompt: [] } : splitTrailingPrompt(args, SUBCOMMAND_NAMES);
  const { program, pending } = buildProgram(complete || mayNameSubcommand(args), app, line.prompt);
  if (complete) {
    // Called by the completion scripts at each TAB: `__complete -- <words…> <current word>`.
    const { answerCompletion } = await import('./completion-data.js');
    return answerCompletion(program, args.slice(args[1] === '--' ? 2 : 1), app.io.stdout);
  }
  try {
    await program.parseAsync(line.args, { from: 'user' });
  } catch (error) {
    // help and --version end with code 0; every parse error is a usage error (exit 2).
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    throw error;
  }
  return pending() ?? ExitCode.ok;
}

/**
 * The command line's commander program. `withSubcommands` false: the root command alone, for a line
 * that cannot reach a subcommand (mayNameSubcommand, command-line.ts) — building the eleven others and
 * their options (chat, demo and batch each take the root's ~40 again) was ~3 ms of every one-shot.
 */
export function buildProgram(withSubcommands: boolean, app: App, trailingPrompt: readonly string[] = []): { program: Command; pending: () => Action | undefined } {
  let pending: Action | undefined;
  const run = (action: Action) => {
    pending = action;
  };
  const program = createRootCommand();
  program
    .enablePositionalOptions()
    .exitOverride()
    // `gatechat -p work help` shows help, whatever options came before it.
    .hook('preAction', (root, actionCommand) => {
      if (actionCommand.name() !== 'help') carryLeadingOptions(root, actionCommand);
    });

  // The same action as a line read without commander (main.ts, fast-line.ts).
  program.action((prompt: string[], raw: RawChatOptions, command: Command) => run(() => app.runRoot(raw, command, [...prompt, ...trailingPrompt])));

  if (withSubcommands) addSubcommands(program, app, run);

  // After every command exists, so each reports parse errors under its own name.
  for (const command of allCommands(program)) {
    command.configureOutput({ outputError: (text, write) => write(formatParseError(text, command)) });
  }
  return { program, pending: () => pending };
}

/** Every command but the root; `help` last, so it lists every other command. */
function addSubcommands(program: Command, app: App, run: (action: Action) => void): void {
  addChatOptions(
    program
      .command('chat')
      .description('interactive chat (the default with no prompt on a terminal); an optional first prompt is sent at once')
      .argument('[prompt...]', 'first prompt'),
    { oneShot: false },
  ).action((prompt: string[], raw: RawChatOptions, command: Command) =>
    run(async () => {
      const options = validateChatOptions(raw, command);
      app.setVerbose(options.verbose);
      return app.runChat(options, prompt.length ? prompt.join(' ') : undefined);
    }),
  );

  const config = program
    .command('config')
    .description('manage stored settings (see: gatechat config list)')
    .addHelpText(
      'after',
      `\nKeys: ${KEY_NAMES.join(', ')}\n` +
        'Profiles hold the same keys: gatechat config set --profile work base-url https://work-gateway/v1\n' +
        `Per-model entries (--model NAME; in a profile too): ${MODEL_ENTRY_KEY_NAMES.join(', ')}\n` +
        '  gatechat config set --model fast model openai/gpt-4o-mini      # -m fast is now an alias\n' +
        '  gatechat config set --model fast temperature 0.2               # applied whenever -m fast is used\n' +
        'MCP servers (--mcp NAME; in a profile too): command, url, env, headers, allow, enabled\n' +
        '  gatechat config set --mcp fs command "npx -y @modelcontextprotocol/server-filesystem ."\n' +
        `File: $GATECHAT_CONFIG_DIR/config.json, else the platform config dir (see: gatechat config path)`,
    );
  const configAction =
    (action: 'set' | 'get' | 'unset' | 'list' | 'path') =>
    (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const opts = command.opts() as { profile?: string; model?: string; mcp?: string; showSecrets?: boolean; json?: boolean };
      const positional = args.slice(0, -2).flat().filter((v): v is string => typeof v === 'string');
      run(async () => {
        const { runConfigCommand } = await import('./commands/config.js');
        return runConfigCommand(action, positional, opts, app.io);
      });
    };
  config
    .command('set')
    .description('set a key (api-key with no value: read from stdin or a hidden prompt)')
    .argument('<key>')
    .argument('[value]')
    .option('-p, --profile <name>', 'set it in this profile')
    .option('-m, --model <name>', "set it in this model's entry (a model key makes NAME an alias)")
    .option('--mcp <name>', "set it in this MCP server's entry (env, headers and allow add to what is there)")
    .action(configAction('set'));
  config
    .command('get')
    .description('print a key (api-key masked unless --show-secrets)')
    .argument('[key]', 'with --mcp, omitted: the whole server entry')
    .option('-p, --profile <name>', 'read it from this profile')
    .option('-m, --model <name>', "read it from this model's entry")
    .option('--mcp <name>', "read it from this MCP server's entry")
    .option('--show-secrets', 'print the API key (and credentials in headers and env) unmasked')
    .action(configAction('get'));
  config
    .command('unset')
    .description('remove a key (with --model and no key: the whole entry)')
    .argument('[key]')
    .argument('[name]', 'with headers: remove only this header')
    .option('-p, --profile <name>', 'from this profile')
    .option('-m, --model <name>', "from this model's entry")
    .option('--mcp <name>', "from this MCP server's entry (no key: the whole server)")
    .action(configAction('unset'));
  config
    .command('list')
    .description('every stored key, per profile, and every model entry (keys masked)')
    .option('-m, --model <name>', "only this model's entry")
    .option('-p, --profile <name>', 'only this profile (with --model: the entry in this profile)')
    .option('--show-secrets', 'print API keys unmasked')
    .option('--json', 'as JSON')
    .action(configAction('list'));
  config.command('path').description('print the config file path').action(configAction('path'));

  program
    .command('tools')
    .description('start the MCP servers and list every tool the model would get: name, source, whether it runs without asking, description')
    .option('--mcp <name=command|url>', 'an MCP server, repeatable (as for a prompt)', collectValues)
    .option('--mcp-config <file>', 'MCP servers from a {"mcpServers": {…}} file')
    .option('--tools <file>', 'tool definitions (x-command ones run locally)')
    .option('--allow <pattern>', 'a tool that runs without asking: a glob over the listed names, repeatable', collectValues)
    .option('-p, --profile <name>', 'the profile whose MCP servers to start')
    .option('--json', 'as JSON')
    .option('-v, --verbose', "show the servers' stderr")
    .action((raw: { mcp?: string[]; mcpConfig?: string; tools?: string; allow?: string[]; profile?: string; json?: boolean; verbose?: boolean }) =>
      run(async () => {
        app.setVerbose(Boolean(raw.verbose));
        const { readToolsFile } = await import('./flags.js');
        const { runToolsCommand } = await import('./commands/tools.js');
        return runToolsCommand(
          {
            mcp: { specs: raw.mcp ?? [], configFile: raw.mcpConfig },
            definitions: raw.tools === undefined ? undefined : readToolsFile(raw.tools),
            allow: raw.allow ?? [],
            profile: raw.profile,
            json: Boolean(raw.json),
            verbose: Boolean(raw.verbose),
          },
          app.io,
        );
      }),
    );

  addConnectionOptions(
    program
      .command('models')
      .description("list the gateway's models (GET {base}/models): ids when piped; on a terminal a table with aliases, context length and prices")
      .argument('[filter]', 'only ids containing this text (case-insensitive)')
      .option('--json', "the gateway's own model objects, as a JSON array"),
  ).action((filter: string | undefined, raw: RawChatOptions & { json?: boolean }) =>
    run(async () => {
      app.setVerbose(Boolean(raw.verbose));
      const flags = validateConnectionFlags(raw);
      const { runModelsCommand } = await import('./commands/models.js');
      return runModelsCommand(flags, { json: Boolean(raw.json), verbose: Boolean(raw.verbose), filter }, app.io);
    }),
  );

  const history = program
    .command('history')
    .description('saved conversations: list [TEXT] (default), show [ID], rm ID, rm --older-than AGE, fork ID, compact [ID [INSTRUCTIONS…]]')
    .argument('[action]', 'list | show | rm | fork | compact', 'list')
    .argument('[words...]', 'list: only conversations whose title, model, system prompt or prompts mention this text; show, rm, fork: an id or its start (show with none: the latest)')
    .option('--json', 'as JSON')
    .option('--older-than <age>', 'rm: every conversation last used longer ago than 12h, 30d, 2w …; on a terminal listed and asked first')
    .option('-y, --yes', 'rm --older-than: remove without asking (scripts: without it, nothing is removed when stdin is not a terminal)')
    // `history compact …`: everything after `compact` is its own (it alone takes the connection options).
    .enablePositionalOptions()
    .action((action: string, words: string[], opts: { json?: boolean; olderThan?: string; yes?: boolean }) =>
      run(async () => {
        if (action !== 'list' && action !== 'show' && action !== 'rm' && action !== 'fork') {
          throw new UsageError(`history: unknown action ${JSON.stringify(action)}; expected list [TEXT], show [ID], rm ID, rm --older-than AGE, fork ID or compact [ID]`);
        }
        if (action !== 'list' && words.length > 1) throw new UsageError(`history ${action}: expected one conversation id, got ${words.length} words`);
        if (action !== 'rm' && (opts.olderThan !== undefined || opts.yes)) throw new UsageError(`history ${action}: ${opts.olderThan !== undefined ? '--older-than' : '--yes'} is for history rm`);
        const { runHistoryCommand } = await import('./commands/history.js');
        return runHistoryCommand(action, words.length ? words.join(' ') : undefined, opts, app.io);
      }),
    );
  addConnectionOptions(
    history
      .command('compact')
      .summary('summarise a conversation; later requests send the summary in place of its turns')
      .description(
        'ask the model for a summary of the conversation so far; later requests (-c, --cid, chat) send it in place of the turns it covers, which stay saved and in history show. ' +
          'stdout: the summary; nothing new to summarise: one line, exit 0',
      )
      .argument('[id]', 'the conversation, or the start of its id (default: the latest)')
      .argument('[instructions...]', 'what the summary should keep or stress, added to the fixed request (e.g. keep every number)')
      .option('-m, --model <id>', "the model that writes it (default: the conversation's)", collectValues)
      .option('--api <chat|messages>', "gateway interface (default: the conversation's)")
      .option('--max-tokens <n>', "the summary's length limit (default: the conversation's)")
      .option('--json', 'one object: id, compacted, summary, turns (covered), through (the last turn\'s id), model, api, usage'),
  ).action((id: string | undefined, words: string[], raw: RawChatOptions, command: Command) =>
    run(async () => {
      app.setVerbose(Boolean(raw.verbose));
      const parent = history.opts() as { json?: boolean; olderThan?: string; yes?: boolean };
      if (parent.olderThan !== undefined || parent.yes) throw new UsageError(`history compact: ${parent.olderThan !== undefined ? '--older-than' : '--yes'} is for history rm`);
      const { runHistoryCompact } = await import('./commands/history-compact.js');
      return runHistoryCompact({ ...raw, json: raw.json || parent.json }, command, id, words, app.io);
    }),
  );

  program
    .command('usage')
    .description('what was spent, from the usage ledger: requests, tokens, cost per day, model or profile; a table with bars on a terminal, TSV when piped')
    .option('--since <when>', 'from: 7d, 24h, 2w, today, yesterday or YYYY-MM-DD (default: 30d)')
    .option('--until <when>', 'through: the same forms; a date includes its whole day (default: now)')
    .option('--by <day|model|profile>', 'one row per day, model or profile (default: day)')
    .option('--json', 'the rows as a JSON array')
    .action((opts: { since?: string; until?: string; by?: string; json?: boolean }) =>
      run(async () => {
        const { runUsageCommand } = await import('./commands/usage.js');
        return runUsageCommand(opts, app.io);
      }),
    );

  program
    .command('template')
    .description("prompt templates in the config dir's templates/: list (default), show NAME, edit NAME (creates it), rm NAME; use one with -T NAME -P key=value")
    .argument('[action]', 'list | show | edit | rm', 'list')
    .argument('[name]', 'the template (a file NAME.md in templates/)')
    .option('--json', 'list: names, parameters and front matter as JSON')
    .action((action: string, name: string | undefined, opts: { json?: boolean }) =>
      run(async () => {
        const { runTemplateCommand, TEMPLATE_ACTIONS } = await import('./commands/template.js');
        const known = TEMPLATE_ACTIONS.find((a) => a === action);
        if (!known) throw new UsageError(`template: unknown action ${JSON.stringify(action)}; expected list, show NAME, edit NAME or rm NAME`);
        return runTemplateCommand(known, name, opts, app.io);
      }),
    );

  program
    .command('serve')
    .description('run the embedded dev gateway (both interfaces, deterministic and fault models)')
    .option('--port <n>', 'port (0: any free port)', '8787')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--api-key <key>', 'require this key (Bearer or x-api-key) on every path, the request log included (default: GATECHAT_SERVE_API_KEY, else none)')
    .action((opts: { port: string; host: string; apiKey?: string }) =>
      run(async () => {
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: expected 0-65535, got ${JSON.stringify(opts.port)}`);
        const { runServe } = await import('../gateway/cli.js');
        return runServe({ port, host: opts.host, apiKey: opts.apiKey ?? process.env.GATECHAT_SERVE_API_KEY });
      }),
    );

  addChatOptions(
    program
      .command('demo')
      .description('start the dev gateway in-process and chat with it: no account or configuration needed; nothing is recorded')
      .argument('[prompt...]', 'prompt (none on a terminal: interactive chat)'),
    { saved: false },
  ).action((prompt: string[], raw: RawChatOptions, command: Command) =>
    run(async () => {
      const options = validateChatOptions(raw, command);
      app.setVerbose(options.verbose);
      const { runDemo } = await import('./commands/demo.js');
      return runDemo(options, prompt, app.io, app.runChatOrOneShot);
    }),
  );

  addBatchOptions(
    program
      .command('batch')
      .description('many prompts from a JSONL file (or - for stdin), concurrent, rate-limit aware, resumable with --output; with --remote on the gateway\'s Batch API (then: batch status|cancel <output>)')
      .argument('<file>', 'JSONL: one prompt per line, a JSON string or {"id","prompt","system","model","temperature","max_tokens","attach","schema","options"}; - for stdin')
      .argument('[output]', 'after status or cancel: the --output of a remote batch (an input file named status: ./status)'),
  ).action((input: string, output: string | undefined, raw: RawChatOptions & RawBatchOptions, command: Command) =>
    run(async () => {
      if (output !== undefined) {
        if (input !== 'status' && input !== 'cancel') throw new UsageError(`batch: unexpected argument ${JSON.stringify(output)}; the input is one file (a remote batch: batch status|cancel <output>)`);
        const options = validateBatchOptions(output, raw, command);
        app.setVerbose(options.chat.verbose);
        const { runRemoteAction } = await import('./commands/batch-remote.js');
        return runRemoteAction(input, output, options, app.io);
      }
      const options = validateBatchOptions(input, raw, command);
      app.setVerbose(options.chat.verbose);
      const { runBatchCommand } = await import('./commands/batch.js');
      return runBatchCommand(options, app.io);
    }),
  );

  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish (e.g. source <(gatechat completion bash))')
    .argument('<shell>', 'bash, zsh or fish')
    .action((shell: string) =>
      run(async () => {
        const { completionScript, parseShell } = await import('./completion.js');
        app.io.stdout.write(completionScript(parseShell(shell)));
        return ExitCode.ok;
      }),
    );

  // Last, so it lists every other command. `gatechat -- help` still sends the word (splitTrailingPrompt).
  program
    .command('help')
    .description('show help for gatechat or a command (gatechat help config set); gatechat -- help sends the word')
    .argument('[command...]', 'a command, e.g. chat or config set')
    .action((words: string[]) =>
      run(async () => {
        helpTarget(program, words).outputHelp();
        return ExitCode.ok;
      }),
    );
}

