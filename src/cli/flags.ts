import { readFileSync } from 'node:fs';
import type { ToolDefinition } from '../protocol/events.js';
import { hasCommandTools } from '../tools/definitions.js';
import type { JsonObject } from '../protocol/json.js';
import { readSchemaOption } from '../session/schema-file.js';
import { UsageError } from '../exit-codes.js';
import {
  parseApi,
  parseBodyOption,
  parseAuth,
  parseBaseUrl,
  parseHeader,
  parseModel,
  parseNonNegativeInt,
  parsePositiveInt,
  parseUsd,
  parseProxyUrl,
  parseSeconds,
  parseTemperature,
} from '../config/keys.js';
import type { RawBatchOptions, RawChatOptions } from './program.js';
import type { SettingsFlags } from '../config/settings.js';
import type { ContextMode } from '../session/context-fit.js';
import { parseModelList } from '../config/model-entries.js';

export interface McpFlags {
  specs: string[];
  configFile?: string;
  /** A template's `mcp` front matter (`-T`): its servers, between the config's and --mcp-config's. */
  template?: { name: string; servers: Record<string, unknown> };
}

/** Flags after validation: only what the user actually passed is set (so config can fill the rest). */
export type ChatFlags = SettingsFlags;

export interface ChatModeOptions {
  flags: ChatFlags;
  tools?: ToolDefinition[];
  /** --mcp and --mcp-config as given: parsed with the config's servers where tools are opened (src/tools/mcp/sources.ts). */
  mcp: McpFlags;
  /** -a values in order; `-` is stdin (then stdin is not part of the prompt). */
  attach: string[];
  /** --schema, parsed (SPEC §12). */
  schema?: JsonObject;
  continueLast: boolean;
  cid?: string;
  readStdin: boolean;
  output: 'auto' | 'json' | 'jsonl';
  showReasoning: boolean;
  quiet: boolean;
  verbose: boolean;
  /** -x: only the first fenced code block of the answer goes to stdout. */
  extract: boolean;
  /** --dry-run: print the request instead of sending it. */
  dryRun: boolean;
  /** demo: ignore the user's config file and environment (their key is never sent to the demo). */
  isolated?: boolean;
  /** Two or more `-m`: compare mode (SPEC §11), one prompt to each, in this order. */
  compare?: string[];
  /** -e: shell mode (SPEC §18), one command suggested, run on a key press. */
  shellMode?: boolean;
  /** -T and its -P values (SPEC §18); `loaded` once cli/template-options.ts has read it. */
  template?: TemplateChoice;
  /** The tool loop's limits and the --allow patterns (SPEC §15). */
  toolLoop: ToolLoopFlags;
  /** --context (SPEC §17): which earlier turns a continued conversation sends. */
  contextMode: ContextMode;
  /** --max-cost: USD this run may spend (SPEC §16). */
  maxCost?: number;
  /** --title (SPEC §17): the conversation's name, one line. */
  title?: string;
  /** --retry (SPEC §17): the continued conversation's last prompt again, no new one. */
  retry?: boolean;
}

export interface TemplateChoice {
  name: string;
  params: Record<string, string>;
  loaded?: import('../session/templates.js').Template;
}

/** `-P key=value` (the value may hold `=`); a key is what a `{{key}}` placeholder can name. */
function parseTemplateParams(raw: string[] | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const assignment of raw ?? []) {
    const equals = assignment.indexOf('=');
    const key = equals < 0 ? '' : assignment.slice(0, equals).trim();
    if (!/^[A-Za-z_][\w-]*$/.test(key)) throw new UsageError(`-P: expected key=value, got ${JSON.stringify(assignment)}`);
    params[key] = assignment.slice(equals + 1);
  }
  return params;
}

export interface ToolLoopFlags {
  allow: string[];
  maxSteps: number;
  timeoutMs: number;
  outputLimit: number;
}

/** `--tool-output-limit`: bytes, or with a K / M suffix (KiB, MiB). */
export function parseByteSize(raw: string, option: string): number {
  const m = raw.trim().match(/^(\d{1,12})\s*(k|kb|kib|m|mb|mib)?$/i);
  const value = m ? Number(m[1]) * (m[2] ? (m[2][0].toLowerCase() === 'k' ? 1024 : 1024 * 1024) : 1) : NaN;
  if (!Number.isSafeInteger(value) || value < 1) throw new UsageError(`${option}: expected a size in bytes ≥ 1 (64K, 1M), got ${JSON.stringify(raw)}`);
  return value;
}

export function validateToolLoopFlags(raw: RawChatOptions): ToolLoopFlags {
  const allow = (raw.allow ?? []).map((pattern) => {
    if (!pattern.trim()) throw new UsageError('--allow: expected a tool name or glob (fs__read_*, *)');
    return pattern.trim();
  });
  return {
    allow,
    maxSteps: raw.maxSteps !== undefined ? parsePositiveInt(raw.maxSteps, '--max-steps') : 10,
    timeoutMs: raw.toolTimeout !== undefined ? Math.round(parseSeconds(raw.toolTimeout, '--tool-timeout') * 1000) : 60_000,
    outputLimit: raw.toolOutputLimit !== undefined ? parseByteSize(raw.toolOutputLimit, '--tool-output-limit') : 64 * 1024,
  };
}

/** The options every request-sending command shares (base URL, auth, headers, timeouts, profile). */
export function validateConnectionFlags(raw: RawChatOptions): ChatFlags {
  const flags: ChatFlags = {};
  if (raw.baseUrl !== undefined) flags.baseUrl = parseBaseUrl(raw.baseUrl, '--base-url');
  if (raw.auth !== undefined) flags.auth = parseAuth(raw.auth, '--auth');
  if (raw.header?.length) {
    flags.headers = {};
    for (const header of raw.header) {
      const [name, value] = parseHeader(header, '--header');
      flags.headers[name] = value;
    }
  }
  if (raw.timeout !== undefined) flags.timeoutS = parseSeconds(raw.timeout, '--timeout');
  if (raw.connectTimeout !== undefined) flags.connectTimeoutS = parseSeconds(raw.connectTimeout, '--connect-timeout');
  if (raw.maxTime !== undefined) flags.maxTimeS = parseSeconds(raw.maxTime, '--max-time');
  if (raw.retries !== undefined) flags.retries = parseNonNegativeInt(raw.retries, '--retries');
  if (raw.proxy !== undefined) flags.proxy = parseProxyUrl(raw.proxy, '--proxy');
  if (raw.profile !== undefined) {
    if (!raw.profile.trim()) throw new UsageError('--profile: expected a profile name');
    flags.profile = raw.profile;
  }
  return flags;
}

/**
 * Where each parsed option's value came from (`'cli'`: typed on the command line, `'default'`: not):
 * a commander Command is one, and so is fast-line.ts's reading of a plain one-shot line.
 */
export interface OptionSources {
  getOptionValueSource(name: string): string | undefined;
}

/**
 * Validates every option before anything is sent (SPEC §2): a bad value is one line naming the
 * option, exit 2. Negatable flags count only when the user typed them, so config can decide otherwise.
 */
export function validateChatOptions(raw: RawChatOptions, sources: OptionSources): ChatModeOptions {
  const typed = (name: keyof RawChatOptions) => sources.getOptionValueSource(name) === 'cli';
  const flags = validateConnectionFlags(raw);
  const models = (raw.model ?? []).map((model) => parseModel(model, '--model'));
  if (models.length > 0) flags.model = models[0];
  if (raw.temperature !== undefined) flags.temperature = parseTemperature(raw.temperature, '--temperature');
  if (raw.maxTokens !== undefined) flags.maxTokens = parsePositiveInt(raw.maxTokens, '--max-tokens');
  if (typed('stream')) flags.stream = raw.stream;
  if (raw.system !== undefined) flags.system = raw.system;
  if (raw.api !== undefined) flags.api = parseApi(raw.api, '--api');
  if (raw.fallback !== undefined) flags.fallback = parseModelList(raw.fallback, '--fallback');
  if (raw.option?.length) {
    flags.extraBody = {};
    for (const assignment of raw.option) {
      const [key, value] = parseBodyOption(assignment, '--option');
      flags.extraBody[key] = value;
    }
  }
  if (typed('save')) flags.save = raw.save;
  if (typed('cache')) flags.cache = raw.cache;
  if (raw.json && raw.jsonl) throw new UsageError('--json and --jsonl: choose one output format');
  if (raw.continue && raw.cid !== undefined) throw new UsageError('--continue and --cid: choose one conversation');
  if (raw.schema !== undefined && raw.tools !== undefined) throw new UsageError('--schema and --tools: choose one (--schema asks for its own answer tool)');
  const attach = raw.attach ?? [];
  if (attach.filter((a) => a === '-').length > 1) throw new UsageError('--attach: - (stdin) can be given once');
  if (raw.execute) {
    const clash = raw.json ? '--json' : raw.jsonl ? '--jsonl' : raw.extract ? '-x' : raw.schema !== undefined ? '--schema' : raw.tools !== undefined ? '--tools' : models.length > 1 ? 'several -m' : null;
    if (clash) throw new UsageError(`-e: shell mode prints one command; not with ${clash}`);
  }
  if (raw.param?.length && raw.template === undefined) throw new UsageError('-P: only with -T <template>');
  const params = parseTemplateParams(raw.param);
  if (models.length > 1 && (raw.continue || raw.cid !== undefined)) {
    throw new UsageError(`compare mode (${models.length} models) starts new conversations: drop ${raw.continue ? '--continue' : '--cid'} or give one -m`);
  }
  const title = raw.title === undefined ? undefined : parseTitle(raw.title, typed('save') && raw.save === false);
  if (raw.retry) checkRetry(raw);

  return {
    flags,
    tools: raw.tools !== undefined ? readToolsFile(raw.tools) : undefined,
    mcp: { specs: raw.mcp ?? [], configFile: raw.mcpConfig },
    attach,
    schema: raw.schema !== undefined ? readSchemaOption(raw.schema, '--schema') : undefined,
    continueLast: Boolean(raw.continue),
    cid: raw.cid,
    readStdin: raw.stdin !== false && !attach.includes('-'),
    output: raw.json ? 'json' : raw.jsonl ? 'jsonl' : 'auto',
    showReasoning: raw.reasoning !== false,
    quiet: Boolean(raw.quiet),
    verbose: Boolean(raw.verbose),
    extract: Boolean(raw.extract),
    dryRun: Boolean(raw.dryRun),
    compare: models.length > 1 ? models : undefined,
    shellMode: raw.execute ? true : undefined,
    template: raw.template !== undefined ? { name: raw.template, params } : undefined,
    toolLoop: validateToolLoopFlags(raw),
    contextMode: parseContextMode(raw.context),
    ...(raw.maxCost !== undefined ? { maxCost: parseMaxCost(raw.maxCost) } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(raw.retry ? { retry: true } : {}),
  };
}

/** --title: one line (white space runs, newlines included, become one space), 1–200 characters. */
function parseTitle(raw: string, noSave: boolean): string {
  if (noSave) throw new UsageError('--title: names a saved conversation, and --no-save saves none');
  const title = raw.replace(/\s+/g, ' ').trim();
  if (!title) throw new UsageError('--title: expected a name for the conversation');
  if ([...title].length > 200) throw new UsageError(`--title: at most 200 characters, got ${[...title].length}`);
  return title;
}

/** --retry asks a saved prompt again: it needs that conversation, and nothing that makes a new prompt. */
function checkRetry(raw: RawChatOptions): void {
  if (!raw.continue && raw.cid === undefined) throw new UsageError('--retry: asks a saved conversation\'s last prompt again: add -c (the latest) or --cid <id>');
  const clash = raw.attach?.length ? '-a' : raw.template !== undefined ? '-T' : raw.execute ? '-e' : raw.dryRun ? '--dry-run' : null;
  if (clash) throw new UsageError(`--retry: sends the saved prompt as it was; not with ${clash}`);
}

/** `--context full` or `--context <n>` (a whole number ≥ 1); not given: fit the model's window. */
function parseContextMode(raw: string | undefined): ContextMode {
  if (raw === undefined) return { kind: 'auto' };
  if (raw.trim() === 'full') return { kind: 'full' };
  if (!/^\s*\d+\s*$/.test(raw)) throw new UsageError(`--context: expected full or a number of turns ≥ 1, got ${JSON.stringify(raw)}`);
  return { kind: 'last', turns: parsePositiveInt(raw, '--context') };
}

/** --max-cost: a positive amount of US dollars (0 would refuse every request: surely a typo). */
function parseMaxCost(raw: string): number {
  const usd = parseUsd(raw, '--max-cost');
  if (usd === 0) throw new UsageError('--max-cost: expected an amount of US dollars > 0 such as 0.50, got "0"');
  return usd;
}

/** `--tools <file>`: a JSON array of Chat Completions tool definitions, checked before sending. */
export function readToolsFile(path: string): ToolDefinition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--tools: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--tools: ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new UsageError(`--tools: ${path} must hold a JSON array of tool definitions`);
  value.forEach((tool, index) => {
    const fn = (tool as ToolDefinition | null)?.function;
    if (
      typeof tool !== 'object' ||
      tool === null ||
      (tool as ToolDefinition).type !== 'function' ||
      typeof fn !== 'object' ||
      fn === null ||
      typeof fn.name !== 'string' ||
      !fn.name ||
      (fn.parameters !== undefined && (typeof fn.parameters !== 'object' || fn.parameters === null))
    ) {
      throw new UsageError(
        `--tools: item ${index} in ${path} is not {"type":"function","function":{"name":…,"parameters":{…}}}`,
      );
    }
  });
  return value as ToolDefinition[];
}

/** `batch`: the chat options that make sense per line, then output and concurrency. */
export function validateBatchOptions(input: string, raw: RawChatOptions & RawBatchOptions, sources: OptionSources): BatchOptions {
  if ((raw.model?.length ?? 0) > 1) throw new UsageError('batch: -m takes one model, the default for every line (a line\'s "model" picks another)');
  const chat = validateChatOptions(raw, sources);
  let concurrency = DEFAULT_BATCH_CONCURRENCY;
  if (raw.concurrency !== undefined) concurrency = parsePositiveInt(raw.concurrency, '--concurrency');
  if (concurrency > MAX_BATCH_CONCURRENCY) throw new UsageError(`--concurrency: at most ${MAX_BATCH_CONCURRENCY}, got ${concurrency}`);
  if (raw.output !== undefined && !raw.output.trim()) throw new UsageError('--output: expected a file name');
  if (!input.trim()) throw new UsageError('batch: expected a JSONL file or - for stdin');
  if (raw.attachRoot !== undefined && !raw.attachRoot.trim()) throw new UsageError('--attach-root: expected a directory');
  if (raw.detach && !raw.remote) throw new UsageError('--detach: only with --remote (a local batch runs here, it cannot be left)');
  if (raw.remote) checkRemote(input, raw, chat);
  return { input, output: raw.output, concurrency, chat, attachRoot: raw.attachRoot, remote: Boolean(raw.remote), detach: Boolean(raw.detach) };
}

/** What a batch run on the gateway (SPEC §19) cannot do: each refused before anything is sent. */
function checkRemote(input: string, raw: RawBatchOptions, chat: ChatModeOptions): void {
  if (raw.output === undefined) throw new UsageError('--remote: needs --output out.jsonl (the batch ids are saved beside it, so a rerun collects instead of submitting again)');
  if (input === '-') throw new UsageError('--remote: needs a file, not stdin (its lines are read again to split it into batches and to resume)');
  if (chat.flags.save) throw new UsageError('--save: not with --remote (the answers are made on the gateway, not as conversations here)');
  // SPEC §16 budgets stop requests before they start; a remote batch's requests all start on the gateway at once.
  if (chat.maxCost !== undefined) throw new UsageError('--max-cost: not with --remote (the gateway runs every line of a remote batch; it cannot stop part-way on a budget)');
  if (chat.mcp.specs.length > 0 || chat.mcp.configFile !== undefined || hasCommandTools(chat.tools)) {
    throw new UsageError('--remote: tools that run (--mcp, --mcp-config, "x-command") need a tool loop on this machine; run the batch without --remote');
  }
}

export const DEFAULT_BATCH_CONCURRENCY = 4;
/** More than this is a typo, not a plan: a gateway would refuse most of it anyway. */
export const MAX_BATCH_CONCURRENCY = 256;

export interface BatchOptions {
  /** A path, or `-` for stdin. */
  input: string;
  output?: string;
  concurrency: number;
  chat: ChatModeOptions;
  /** Where a line's files must lie (SPEC §20); undefined: the current directory. */
  attachRoot?: string;
  /** SPEC §19: on the gateway's Batch API; `detach`: submit and exit. */
  remote: boolean;
  detach: boolean;
}
