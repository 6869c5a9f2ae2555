import { statSync } from 'node:fs';
import { UsageError } from '../../exit-codes.js';
import { outsideRoot, type AttachRoot } from '../../session/attach-root.js';
import { resolveSettings, type Settings } from '../../config/settings.js';
import type { ConfigFile } from '../../config/keys.js';
import type { BatchItem } from '../../session/batch-input.js';
import { checkAttachmentLimits, readAttachments } from '../../session/attachments.js';
import { compileAnswerSchema, type AnswerValidator } from '../../session/answer-schema.js';
import { readSchemaOption } from '../../session/schema-file.js';
import type { Attachment } from '../../protocol/events.js';
import type { JsonObject } from '../../protocol/json.js';
import type { ChatModeOptions } from '../flags.js';
import type { SessionSettings } from '../../session/types.js';
import { routeFrom, urlFetcher } from '../context.js';

/** What one line is sent with: the command line's options as defaults, the line's own fields on top. */
export interface PreparedLine {
  settings: Settings;
  attachments: Attachment[];
  answerSchema?: { schema: JsonObject; check: AnswerValidator };
}

export interface BatchLinesContext {
  env: Record<string, string | undefined>;
  file: ConfigFile;
  /** Where `-a -` reads from. */
  stdin: NodeJS.ReadableStream | undefined;
  /** Warnings about the files read (skipped links), each said once. */
  warn: (line: string) => void;
  /** Where a line's files must lie (SPEC §20). */
  attachRoot: AttachRoot;
}

/** A line's "schema" is a file only when one is there (else a field list): only then is it a path to check. */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The settings a line's one-turn conversation is opened with: the line's system prompt over the default. */
export function lineSessionSettings(item: BatchItem, settings: Settings): SessionSettings {
  return {
    model: settings.model!,
    api: settings.api,
    temperature: settings.temperature,
    system: item.system ?? settings.system,
    stream: settings.stream,
    maxTokens: settings.maxTokens,
    extraBody: settings.extraBody,
    cache: settings.cache,
  };
}

/** Bounded caches: an input with a different value on every line must not make memory grow. */
const CACHE_LIMIT = 256;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

/**
 * Turns a batch line into what its turn needs (SPEC §13). Scalars (model, temperature, max_tokens,
 * system, schema) replace the defaults; `options` and `attach` add to `-o` and `-a`. Most lines share
 * everything but the prompt, so settings and compiled schemas are cached per distinct value.
 */
export class BatchLines {
  private readonly settingsCache = new Map<string, Settings>();
  private readonly schemaCache = new Map<string, Promise<AnswerValidator>>();
  // A line's files are read twice (the check, then the send): each warning is said once.
  private readonly warned = new Set<string>();

  private constructor(
    private readonly chat: ChatModeOptions,
    private readonly env: Record<string, string | undefined>,
    private readonly file: ConfigFile,
    readonly defaults: Settings,
    private readonly sharedAttachments: Attachment[],
    private readonly sharedSchema: PreparedLine['answerSchema'],
    private readonly warnLine: (line: string) => void,
    private readonly attachRoot: AttachRoot,
  ) {}

  private readonly warn = (line: string): void => {
    if (this.warned.has(line) || this.warned.size >= CACHE_LIMIT) return;
    this.warned.add(line);
    this.warnLine(line);
  };

  /** Reads the `-a` files once and compiles `--schema` once, before anything is sent. */
  static async open(chat: ChatModeOptions, context: BatchLinesContext): Promise<BatchLines> {
    const { env, file, stdin, warn } = context;
    // batch records nothing unless --save is given (thousands of one-turn conversations are noise).
    const defaults = resolveSettings({ flags: { save: false, ...chat.flags }, env, file });
    // -a URL: fetched once, over the route the batch's requests take (proxy, timeouts, retries).
    const attachments = await readAttachments(chat.attach, { stdin, warn, commands: true, fetchUrl: urlFetcher(routeFrom(defaults)) });
    const schema = chat.schema ? { schema: chat.schema, check: await compileAnswerSchema(chat.schema) } : undefined;
    return new BatchLines(chat, env, file, defaults, attachments, schema, warn, context.attachRoot);
  }

  /** What can be said about a line without reading anything (also run on lines read from stdin). */
  problemOf(item: BatchItem): string | null {
    if (!this.defaults.model && item.model === undefined) return 'no "model" in the line and no default model (pass -m or: gatechat config set model <id>)';
    if (item.schema !== undefined && this.chat.tools !== undefined) return '"schema" and --tools: choose one (a schema asks for its own answer tool)';
    // Only paths and their links are looked at here; the files are read by prepare(), never for a refused line.
    if (item.attach !== undefined) {
      const outside = outsideRoot(item.attach, this.attachRoot, 'attach');
      if (outside !== null) return outside;
    }
    if (typeof item.schema === 'string' && isFile(item.schema)) return outsideRoot([item.schema], this.attachRoot, 'schema');
    return null;
  }

  /**
   * The first pass over a file: everything prepare() would refuse, found before anything is sent. A
   * promise only when the line names files to read (most lines name none: no async step for them).
   */
  check(item: BatchItem): string | null | Promise<string | null> {
    const problem = this.problemOf(item);
    if (problem !== null || (item.attach === undefined && item.schema === undefined)) return problem;
    return this.checkReading(item);
  }

  private async checkReading(item: BatchItem): Promise<string | null> {
    try {
      // The attachments are read and let go: the second pass reads them again when the line is sent.
      await this.prepare(item);
      return null;
    } catch (error) {
      if (error instanceof UsageError) return error.message;
      throw error;
    }
  }

  /**
   * Throws UsageError for an attachment or schema that cannot be used: the line is then invalid. A
   * promise only when the line has its own attachments or schema to read.
   */
  prepare(item: BatchItem): PreparedLine | Promise<PreparedLine> {
    if (item.attach !== undefined || item.schema !== undefined) return this.prepareReading(item);
    checkAttachmentLimits(this.sharedAttachments, item.prompt);
    return { settings: this.settingsFor(item), attachments: this.sharedAttachments, answerSchema: this.sharedSchema };
  }

  private async prepareReading(item: BatchItem): Promise<PreparedLine> {
    const own = item.attach ? await readAttachments(item.attach, { warn: this.warn }) : [];
    const attachments = own.length ? [...this.sharedAttachments, ...own] : this.sharedAttachments;
    checkAttachmentLimits(attachments, item.prompt);
    const answerSchema = item.schema === undefined ? this.sharedSchema : await this.lineSchema(item.schema);
    return { settings: this.settingsFor(item), attachments, answerSchema };
  }

  /** The schema a line's answer is checked against (its own, else --schema), without reading its files. */
  async answerSchemaOf(item: BatchItem): Promise<PreparedLine['answerSchema']> {
    return item.schema === undefined ? this.sharedSchema : this.lineSchema(item.schema);
  }

  private async lineSchema(value: unknown): Promise<PreparedLine['answerSchema']> {
    const schema = typeof value === 'string' ? readSchemaOption(value, '"schema"') : (value as JsonObject);
    const key = JSON.stringify(schema);
    const check = this.schemaCache.get(key) ?? remember(this.schemaCache, key, compileAnswerSchema(schema));
    try {
      return { schema, check: await check };
    } catch (error) {
      this.schemaCache.delete(key);
      throw error;
    }
  }

  private settingsFor(item: BatchItem): Settings {
    const key = item.options === undefined ? `${item.model}\u0000${item.temperature}\u0000${item.maxTokens}` : null;
    const cached = key === null ? undefined : this.settingsCache.get(key);
    if (cached) return cached;
    const { chat } = this;
    const settings = resolveSettings({
      flags: {
        save: false,
        ...chat.flags,
        ...(item.model !== undefined ? { model: item.model } : {}),
        ...(item.temperature !== undefined ? { temperature: item.temperature } : {}),
        ...(item.maxTokens !== undefined ? { maxTokens: item.maxTokens } : {}),
        ...(item.options !== undefined ? { extraBody: { ...chat.flags.extraBody, ...item.options } } : {}),
      },
      env: this.env,
      file: this.file,
    });
    return key === null ? settings : remember(this.settingsCache, key, settings);
  }
}
