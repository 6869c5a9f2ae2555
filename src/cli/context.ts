import { openConfigStore } from '../config/store.js';
import { requireConnection, resolveSettings, type Settings } from '../config/settings.js';
import { runApiKeyCommand } from '../config/api-key-cmd.js';
import { ConversationStore } from '../session/conversation-store.js';
import { dataDir } from '../session/paths.js';
import { cachedContextWindow } from '../session/models-cache.js';
import { cachedPrices } from '../session/models-cache.js';
import { UsageLedger } from '../session/ledger.js';
import { runBudget } from './run-budget.js';
import { openConversation, type GatewayConversationApi } from '../session/conversation.js';
import { compileAnswerSchema } from '../session/answer-schema.js';
import { checkAttachmentLimits, readAttachments } from '../session/attachments.js';
import { readPromptInput, type WholeInput } from '../session/stdin.js';
import type { Attachment } from '../protocol/events.js';
import type { Connection } from '../transport/http.js';
import type { WebAccess } from '../session/url-input.js';
import { plainHttpWarning } from '../transport/http.js';
import { UsageError } from '../exit-codes.js';
import type { LearnedFacts } from '../client/chat-stream.js';
import { sanitizeForTerminal } from '../render/terminal-text.js';
import type { ChatFlags, ChatModeOptions } from './flags.js';
import { wireTools } from '../tools/definitions.js';
import { continuedFlags, continuedTools, keepConversationValues } from './continue-settings.js';

export interface Io {
  /** main.ts makes it a getter: process.stdin builds a stream (a net.Socket for a pipe) when first read. */
  stdin: NodeJS.ReadStream;
  /**
   * The same stdin read whole through its descriptor (session/direct-stdin.ts), for the prompt: where
   * given, the one-shot path asks it, not `stdin`, whether stdin is a terminal and what it holds.
   */
  wholeStdin?: WholeInput;
  /** main.ts makes both getters: process.stdout and process.stderr build their stream when first read. */
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /**
   * Whether each is a terminal, asked of its descriptor (std-streams.ts): where given, the one-shot path
   * asks it, so a stream is built only to be written to.
   */
  terminals?: { readonly stdout: boolean; readonly stderr: boolean };
}

/** Is stdin a terminal — asked of wholeStdin where there is one, so the stream is not built for it. */
export function stdinIsTerminal(io: Io): boolean {
  return Boolean((io.wholeStdin ?? io.stdin).isTTY);
}

/** Is stdout a terminal — asked of the descriptor where main.ts gives it, so the stream is not built for it. */
export function stdoutIsTerminal(io: Io): boolean {
  return io.terminals ? io.terminals.stdout : Boolean(io.stdout.isTTY);
}

/** Is stderr a terminal — as stdoutIsTerminal. */
export function stderrIsTerminal(io: Io): boolean {
  return io.terminals ? io.terminals.stderr : Boolean(io.stderr.isTTY);
}

/** flag → environment → profile → config → defaults (SPEC §3). */
export async function loadSettings(flags: ChatFlags, isolated = false): Promise<Settings> {
  if (isolated) return resolveSettings({ flags, env: {}, file: {} });
  const store = openConfigStore();
  return resolveSettings({ flags, env: process.env, file: await store.snapshot() });
}

const keysByCommand = new Map<string, Promise<string>>();

/**
 * SPEC §14: the `api-key-cmd` runs here, once a request is about to need the key, never earlier
 * (config, history, --help and bad flags never start a password manager).
 */
export async function resolveApiKey<T extends Settings>(settings: T): Promise<T> {
  if (settings.apiKeyCmd === undefined) return settings;
  // Once per run: compare mode opens a session per model, and a password manager should ask once.
  let key = keysByCommand.get(settings.apiKeyCmd);
  if (!key) keysByCommand.set(settings.apiKeyCmd, (key = runApiKeyCommand(settings.apiKeyCmd)));
  return { ...settings, apiKey: await key };
}

export function connectionFrom(settings: Settings & { baseUrl: string }): Connection {
  return {
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    auth: settings.auth,
    headers: settings.headers,
    ...routeFrom(settings),
  };
}

/** How a request gets there and how long it may take: the gateway's requests and (-a URL) pages alike. */
export function routeFrom(settings: Settings): WebAccess {
  return {
    timeouts: {
      connectMs: settings.connectTimeoutS * 1000,
      headersMs: settings.timeoutS * 1000,
      idleMs: settings.timeoutS * 1000,
    },
    retries: settings.retries,
    ...(settings.maxTimeS !== undefined ? { maxTimeMs: settings.maxTimeS * 1000 } : {}),
    proxy: settings.proxy,
  };
}

export interface Diagnostics {
  log?: (line: string) => void;
  warn: (line: string) => void;
}

/**
 * For readPromptInput: `cmd | gatechat` where the pipe stays open and empty looks like a hang, so a
 * person watching stderr is told why. Not when stderr is not a terminal: scripts get no chatter.
 */
export function silentStdinHint(io: Io): (() => void) | undefined {
  if (!stderrIsTerminal(io)) return undefined;
  return () => io.stderr.write('gatechat: reading the prompt from stdin, which has sent nothing yet (pass --no-stdin to skip it)\n');
}

/** Diagnostics quote the gateway (messages, bodies with -v): drawn without its escape codes. */
/** `gatechat: `, or `gatechat: [model] ` for one model of a compare run. */
const linePrefix = (label?: string) => (label === undefined ? 'gatechat: ' : `gatechat: [${label}] `);

export function diagnostics(io: Io, verbose: boolean, label?: string): Diagnostics {
  const prefix = linePrefix(label);
  const print = (line: string) => io.stderr.write(`${prefix}${sanitizeForTerminal(line)}\n`);
  return { log: verbose ? print : undefined, warn: print };
}

/**
 * SPEC §11 learned facts: recorded in the model's own entry (of the profile in effect, else the top
 * level), so the next run sends the right field at once. A failure to write is a warning only.
 */
export async function rememberFacts(profile: string | undefined, model: string, facts: LearnedFacts, out: Diagnostics): Promise<void> {
  const store = openConfigStore();
  try {
    for (const [key, value] of Object.entries(facts) as Array<[keyof LearnedFacts, unknown]>) {
      await store.setModelKey(model, key, value, profile);
      out.log?.(`remembered: gatechat config set${profile ? ` --profile ${profile}` : ''} --model ${model} ${key} ${String(value)}`);
    }
  } catch (error) {
    out.warn(`warning: could not record what the gateway wants for ${model} in ${store.path}: ${(error as Error).message}`);
  }
}

/** Everything a turn needs, resolved and validated before anything is sent. */
export interface Session {
  settings: Settings;
  conn: Connection;
  conversation: GatewayConversationApi;
  /**
   * A live terminal view draws retry notices itself: written straight to stderr they would land
   * inside its live region, be erased by the next frame and leave stale spinner lines behind.
   */
  showRetryNotices(show: (line: string) => void): void;
}

/** Warnings about the connection itself (plain HTTP) are said once, not once per compared model. */
const connectionWarnings = new Set<string>();

/** `label` (compare mode: the model name) prefixes this session's warnings and retry notices. */
export async function openSession(options: ChatModeOptions, io: Io, label?: string): Promise<Session> {
  // The conversation first: its settings come before the environment and config (SPEC §6).
  const continuing = options.continueLast || options.cid !== undefined;
  // What a damaged conversation file lost is said in one line; the rest of it is continued.
  const store = continuing ? new ConversationStore(dataDir(), { warn: diagnostics(io, false, label).warn }) : null;
  // --cid takes what `history show` takes: an id or a start of one that names a single conversation.
  const resume = store ? store.load(options.cid !== undefined ? store.resolveId(options.cid) : latestCid(store)) : undefined;
  const flags = continuedFlags(options.flags, resume?.settings);
  const settings = keepConversationValues(await loadSettings(flags, options.isolated), options.flags, resume?.settings);
  // --dry-run masks the key anyway: it does not start a password manager to print "[redacted]".
  const ready = options.dryRun && settings.apiKeyCmd !== undefined ? { ...requireConnection(settings), apiKey: 'api-key-cmd' } : await resolveApiKey(requireConnection(settings));
  // The demo gateway is in this process: no proxy from the user's environment stands in between.
  const conn = { ...connectionFrom(ready), ...(options.isolated ? { proxy: null } : {}) };
  const { log, warn } = diagnostics(io, options.verbose, label);

  const httpWarning = plainHttpWarning(conn);
  if (httpWarning && !connectionWarnings.has(httpWarning)) {
    connectionWarnings.add(httpWarning);
    diagnostics(io, false).warn(httpWarning);
  }
  // Compiled before anything is sent: a schema ajv cannot use is a usage error, not exit 9 later.
  const answerSchema = options.schema ? { schema: options.schema, check: await compileAnswerSchema(options.schema) } : undefined;

  let showRetry = (line: string): void => void io.stderr.write(`${line}\n`);
  const conversation = openConversation({
    conn,
    settings: {
      model: ready.model,
      api: settings.api,
      temperature: settings.temperature,
      // -s "" means no system prompt (and drops a continued conversation's): never an empty one.
      system: settings.system || undefined,
      stream: settings.stream,
      maxTokens: settings.maxTokens,
      extraBody: settings.extraBody,
      cache: settings.cache,
    },
    maxTokensField: settings.maxTokensField,
    // x-command is gatechat's own: never sent, never saved (SPEC §15).
    tools: continuedTools(options.tools && wireTools(options.tools), resume?.settings),
    store: store ?? (settings.save ? new ConversationStore(dataDir()) : null),
    record: settings.save,
    // A piped answer is written delta by delta and needed by nothing after: don't hold it (a 50 MB
    // answer would otherwise sit in memory once more). --json, --jsonl and the terminal views need it.
    // --schema needs the whole answer to check it.
    retainText: answerSchema !== undefined || !(options.output === 'auto' && !stdoutIsTerminal(io)),
    answerSchema,
    resume,
    log,
    warn,
    contextMode: options.contextMode,
    fallbacks: settings.fallback,
    title: options.title,
    // The entry's window for the model asked for, else what the gateway's model list said (SPEC §17).
    contextWindow: (model) => (model === ready.model && settings.context !== undefined ? settings.context : options.isolated ? undefined : cachedContextWindow(conn.baseUrl, model)),
    // SPEC §16: the entry's prices, else the gateway's list as `gatechat models` last cached it. The entry
    // belongs to the model the run started with (a /model switch in chat falls back to the cache).
    pricesFor: (model) => (model === ready.model ? settings.prices : undefined) ?? cachedPrices(conn.baseUrl, model),
    // demo's gateway is not the user's: its requests are not the user's spending.
    ledger: options.isolated || !settings.ledger ? undefined : new UsageLedger({ profile: settings.profile }, warn),
    budget: options.isolated ? undefined : await runBudget(settings, options.maxCost),
    // demo's settings are not the user's: nothing is recorded there.
    onLearned: options.isolated ? undefined : (model, facts) => rememberFacts(settings.profile, model, facts, { log, warn }),
    onRetry: ({ attempt, delayMs, reason }) =>
      showRetry(`${linePrefix(label)}${sanitizeForTerminal(reason)}; retry ${attempt} of ${conn.retries} in ${(delayMs / 1000).toFixed(1)} s`),
  });
  return {
    settings,
    conn,
    conversation,
    showRetryNotices: (show) => {
      showRetry = show;
    },
  };
}

function latestCid(store: ConversationStore): string {
  const cid = store.latest();
  if (!cid) throw new UsageError('--continue: there is no saved conversation yet');
  return cid;
}

/**
 * `-a https://…` and /attach: a page fetched over the session's route (proxy, timeouts, retries), never
 * with its credentials. The fetching code (and the HTML libraries after it) load only when a URL is given.
 */
export function urlFetcher(web: WebAccess, log?: (line: string) => void): (url: string) => Promise<Attachment> {
  return async (url) => (await import('../session/url-input.js')).fetchUrlAttachment(url, web, log);
}

/**
 * The user's message for one turn (one-shot, compare): the -a files first (`-a -` takes stdin), then
 * stdin and the prompt words (SPEC §1), then the limits of SPEC §12 — all before anything is sent.
 * Attachments alone are a message.
 */
export async function readMessage(options: ChatModeOptions, promptArgs: string[], io: Io, conn: Connection): Promise<{ prompt: string; attachments: Attachment[] }> {
  const attachments = await readAttachments(options.attach, {
    // A getter: only `-a -` reads the stream, and building it costs every piped one-shot (main.ts).
    get stdin() {
      return io.stdin;
    },
    warn: diagnostics(io, false).warn, commands: true, fetchUrl: urlFetcher(conn, diagnostics(io, options.verbose).log) });
  const stdin = io.wholeStdin ?? io.stdin;
  const readStdin = options.readStdin && !stdinIsTerminal(io);
  const read = (args: string[], allowEmpty: boolean) => readPromptInput({ stdin, args, readStdin, onSilent: silentStdinHint(io), allowEmpty });
  const template = options.template;
  const prompt = template?.loaded
    ? // Loaded only with -T: the template code (and YAML) stay off the plain one-shot path.
      await (await import('./template-options.js')).templatePrompt(template.loaded, template.params, promptArgs, read, attachments.length > 0)
    : await read(promptArgs, attachments.length > 0);
  checkAttachmentLimits(attachments, prompt);
  return { prompt, attachments };
}
