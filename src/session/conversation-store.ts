import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Api, Attachment, FinishReason, ImageMime, ToolCall, ToolDefinition } from '../protocol/events.js';
import { UsageError } from '../exit-codes.js';
import { ensurePrivateDir } from './paths.js';
import { BlobStore } from './blob-store.js';
import type { TurnStatus } from './types.js';

// One append-only JSONL file per conversation. Every record is one line written by one write call
// and fsynced, so a crash can at worst leave a torn *last* line, which load() ignores; the turns
// before it are never touched again.

/**
 * What a conversation continues with (SPEC §6): the header holds the first turn's, and a prompt
 * sent with different ones carries the new set. null is "none" (the gateway's default), written so
 * that a value configured later does not creep into the conversation; a missing field (files
 * written before these were recorded) leaves it to flags and config.
 */
export interface SavedSettings {
  model: string;
  api: Api;
  system?: string | null;
  temperature?: number | null;
  max_tokens?: number | null;
  /** Extra request body fields (-o). */
  options?: Record<string, unknown> | null;
  tools?: ToolDefinition[] | null;
}

export interface MetaRecord extends SavedSettings {
  type: 'meta';
  v: 1;
  cid: string;
  created: string;
}

/** An attachment as saved: text inline, binary content by hash in the blob store. */
export type StoredAttachment =
  | { kind: 'text'; path: string; text: string }
  | { kind: 'image'; path: string; mime: ImageMime; sha256: string; bytes: number }
  | { kind: 'pdf'; path: string; sha256: string; bytes: number };

export interface UserRecord {
  type: 'user';
  ts: string;
  content: string;
  attachments?: StoredAttachment[];
  /** /retry: this prompt asks the previous turn again and supersedes it in the context (both stay on disk). */
  retry?: true;
  /** The settings from this prompt on, when they differ from those before it. */
  settings?: SavedSettings;
}

export interface AssistantRecord {
  type: 'assistant';
  ts: string;
  /** Exactly the text that arrived: partial when the status is not `complete`. */
  content: string;
  reasoning: string | null;
  tool_calls: ToolCall[];
  status: TurnStatus;
  finish_reason: FinishReason | null;
  raw_finish_reason: string | null;
  usage: { input_tokens: number | null; output_tokens: number | null };
  model: string | null;
  api: Api;
  params: { temperature?: number; max_tokens?: number; stream: boolean; options?: Record<string, unknown> };
  timings: { first_token_ms: number | null; total_ms: number };
  error?: { message: string; exit_code: number };
}

/**
 * A piece of an answer written while it streams (long answers that are not kept in memory). The
 * turn's `assistant` record follows with the rest; without one (a crash), the parts are the
 * partial answer.
 */
export interface AnswerPartRecord {
  type: 'answer_part';
  ts: string;
  content: string;
}

type StoredRecord = UserRecord | AssistantRecord | AnswerPartRecord;

/** What callers pass: the store stamps `type` and `ts`. */
export type AssistantInput = Omit<AssistantRecord, 'type' | 'ts'> & { ts?: string };

/** A conversation read back: its turns and the settings its last prompt was sent with. */
export interface LoadedConversation {
  meta: MetaRecord;
  turns: StoredTurn[];
  settings: SavedSettings;
}

export interface StoredTurn {
  user: string;
  /** As saved; StoredAttachments → Attachments with ConversationStore.hydrate(). */
  attachments?: StoredAttachment[];
  /** null when the answer never got recorded (crash, kill -9). */
  assistant: AssistantRecord | null;
}

export interface ConversationSummary {
  cid: string;
  created: string;
  updated: string;
  model: string;
  api: Api;
  turns: number;
  /** First line of the first prompt, at most 60 characters. */
  title: string;
}

// Letters, digits, '-' and '_' only: no '.', no separators, so an id can never leave the directory.
const CID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export class ConversationStore {
  private readonly root: string;
  private readonly blobs: BlobStore;

  constructor(dir: string) {
    this.root = join(dir, 'conversations');
    this.blobs = new BlobStore(dir);
  }

  /** Writes the header line at once (exclusive create), so the id is taken and listed from then on. */
  create(settings: SavedSettings): string {
    try {
      ensurePrivateDir(this.root);
    } catch (error) {
      throw unwritable(this.root, error);
    }
    for (let attempt = 0; ; attempt++) {
      const cid = newCid();
      const record: MetaRecord = { type: 'meta', v: 1, cid, created: new Date().toISOString(), ...settings };
      let fd: number;
      try {
        fd = openSync(this.file(cid), 'wx', 0o600);
      } catch (error) {
        // Two ids in the same second with the same 16 random bits: draw again.
        if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 20) continue;
        throw unwritable(this.root, error);
      }
      try {
        writeSync(fd, `${JSON.stringify(record)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return cid;
    }
  }

  /** Called before the request is sent, so a crash mid-answer never loses the prompt. */
  appendUser(cid: string, content: string, options: { retry?: boolean; settings?: SavedSettings; attachments?: readonly Attachment[] } = {}): void {
    const record: UserRecord = { type: 'user', ts: new Date().toISOString(), content };
    if (options.attachments?.length) record.attachments = options.attachments.map((a) => this.storeAttachment(a));
    if (options.retry) record.retry = true;
    if (options.settings) record.settings = options.settings;
    this.append(cid, record);
  }

  private storeAttachment(a: Attachment): StoredAttachment {
    try {
      switch (a.kind) {
        case 'text':
          return a;
        case 'image':
          return { kind: 'image', path: a.path, mime: a.mime, sha256: this.blobs.put(a.data), bytes: a.bytes };
        case 'pdf':
          return { kind: 'pdf', path: a.path, sha256: this.blobs.put(a.data), bytes: a.bytes };
        default: {
          const never: never = a;
          return never;
        }
      }
    } catch (error) {
      throw unwritable(this.blobs.root, error);
    }
  }

  /** Saved attachments with their content, to send again (-c / --cid). A lost blob is a usage error. */
  hydrate(stored: readonly StoredAttachment[], cid: string): Attachment[] {
    return stored.map((a): Attachment => {
      if (a.kind === 'text') return a;
      const data = this.blobs.get(a.sha256);
      if (data === null) {
        throw new UsageError(
          `conversation ${cid}: the attached ${a.path} is missing from ${this.blobs.root}`,
          'start a new conversation, or attach the file again',
        );
      }
      return a.kind === 'image' ? { kind: 'image', path: a.path, mime: a.mime, data, bytes: a.bytes } : { kind: 'pdf', path: a.path, data, bytes: a.bytes };
    });
  }

  /** Appends a piece of the answer being streamed; the final appendAssistant() carries the rest. */
  appendAnswerPart(cid: string, content: string): void {
    this.append(cid, { type: 'answer_part', ts: new Date().toISOString(), content } satisfies AnswerPartRecord);
  }

  /** Called when the turn ends, whatever the status. */
  appendAssistant(cid: string, record: AssistantInput): void {
    this.append(cid, { ...record, type: 'assistant', ts: record.ts ?? new Date().toISOString() } satisfies AssistantRecord);
  }

  load(cid: string): LoadedConversation {
    const { meta, records } = this.read(cid);
    const turns: StoredTurn[] = [];
    let settings = headerSettings(meta, records);
    let parts: string[] = [];
    // Parts streamed to disk with no final record (a crash mid-answer) are the partial answer.
    const closeCrashedAnswer = (): void => {
      const last = turns[turns.length - 1];
      if (last && last.assistant === null && parts.length > 0) last.assistant = crashedAnswer(parts.join(''), meta);
      parts = [];
    };
    for (const record of records) {
      if (record.type === 'user') {
        closeCrashedAnswer();
        if (record.settings) settings = savedSettings(record.settings, settings);
        if (record.retry) turns.pop();
        turns.push(record.attachments?.length ? { user: record.content, attachments: record.attachments, assistant: null } : { user: record.content, assistant: null });
      } else if (record.type === 'answer_part') {
        parts.push(record.content);
      } else {
        const last = turns[turns.length - 1];
        // An answer always follows its prompt; one without a prompt (hand edits) is dropped.
        if (last && last.assistant === null) {
          last.assistant = parts.length > 0 ? { ...record, content: parts.join('') + record.content } : record;
        }
        parts = [];
      }
    }
    closeCrashedAnswer();
    return { meta, turns, settings };
  }

  /** The conversation written to most recently (what `-c` continues), or null when there is none. */
  latest(): string | null {
    let best: { cid: string; mtime: number } | null = null;
    for (const cid of this.ids()) {
      const mtime = statSync(this.file(cid)).mtimeMs;
      if (!best || mtime > best.mtime || (mtime === best.mtime && cid > best.cid)) best = { cid, mtime };
    }
    return best?.cid ?? null;
  }

  /**
   * The conversation an id or the start of one names (`history show 20261122-10`). Several matches
   * are a usage error listing them, so a prefix never silently picks one.
   */
  resolveId(prefix: string): string {
    if (!CID_PATTERN.test(prefix)) {
      throw new UsageError(`not a conversation id: ${JSON.stringify(prefix)} (see: gatechat history list)`);
    }
    const ids = this.ids();
    if (ids.includes(prefix)) return prefix;
    const matches = ids.filter((cid) => cid.startsWith(prefix));
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) throw new UsageError(`no conversation with id ${prefix}: see gatechat history list`);
    const shown = matches.slice(-10).reverse();
    const more = matches.length > shown.length ? `, … (${matches.length - shown.length} more)` : '';
    throw new UsageError(`${prefix} matches ${matches.length} conversations: ${shown.join(', ')}${more}; give more of the id`);
  }

  /**
   * Newest activity first. `matching`: only conversations whose prompts, answers, system prompt or
   * model contain that text, ignoring case.
   */
  list(matching?: string): ConversationSummary[] {
    const needle = matching?.toLowerCase();
    const summaries: ConversationSummary[] = [];
    for (const cid of this.ids()) {
      const { meta, records } = this.read(cid);
      if (needle && ![meta.model, meta.system ?? '', ...records.map((r) => r.content)].some((text) => text.toLowerCase().includes(needle))) {
        continue;
      }
      const firstUser = records.find((r): r is UserRecord => r.type === 'user');
      const last = records[records.length - 1];
      summaries.push({
        cid,
        created: meta.created,
        updated: last?.ts ?? meta.created,
        model: meta.model,
        api: meta.api,
        turns: records.filter((r) => r.type === 'user').length,
        title: titleOf(firstUser?.content ?? ''),
      });
    }
    return summaries.sort((a, b) => (a.updated === b.updated ? b.cid.localeCompare(a.cid) : b.updated.localeCompare(a.updated)));
  }

  /** Removes the conversation and the blobs no other conversation uses; returns how many blobs went. */
  remove(cid: string): number {
    rmSync(this.existingFile(cid));
    const inUse = new Set<string>();
    for (const other of this.ids()) {
      for (const record of this.read(other).records) {
        if (record.type !== 'user') continue;
        for (const a of record.attachments ?? []) if (a.kind !== 'text') inUse.add(a.sha256);
      }
    }
    return this.blobs.collect(inUse);
  }

  private file(cid: string): string {
    return join(this.root, `${cid}.jsonl`);
  }

  private existingFile(cid: string): string {
    if (!CID_PATTERN.test(cid)) {
      throw new UsageError(`not a conversation id: ${JSON.stringify(cid)} (see: gatechat history list)`);
    }
    const path = this.file(cid);
    if (!existsSync(path)) throw new UsageError(`no conversation with id ${cid}: see gatechat history list`);
    return path;
  }

  private ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw unreadable(this.root, error);
    }
    return names
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => name.slice(0, -'.jsonl'.length))
      .filter((cid) => CID_PATTERN.test(cid))
      .sort();
  }

  private append(cid: string, record: StoredRecord): void {
    const path = this.existingFile(cid);
    // 'a+' so the last byte can be read: after a torn line the new record must start on a line
    // of its own, or it would be glued to the fragment and lost with it.
    const fd = openSync(path, 'a+', 0o600);
    try {
      const { size } = fstatSync(fd);
      let prefix = '';
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) prefix = '\n';
      }
      writeSync(fd, `${prefix}${JSON.stringify(record)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Every readable record, header first: what `history show --json` prints. */
  records(cid: string): Array<MetaRecord | StoredRecord> {
    const { meta, records } = this.read(cid);
    return [meta, ...records];
  }

  private read(cid: string): { meta: MetaRecord; records: StoredRecord[] } {
    const text = readFileSync(this.existingFile(cid), 'utf8');
    let meta: MetaRecord | undefined;
    const records: StoredRecord[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        // A torn line (crash mid-write): skip it, keep everything else.
        continue;
      }
      const record = value as { type?: unknown; content?: unknown };
      if (record?.type === 'meta' && !meta) meta = value as MetaRecord;
      else if ((record?.type === 'user' || record?.type === 'assistant' || record?.type === 'answer_part') && typeof record.content === 'string') {
        records.push(value as StoredRecord);
      }
    }
    // Only a crash inside create() leaves no header; the conversation is still readable.
    meta ??= { type: 'meta', v: 1, cid, created: records[0]?.ts ?? '', model: '', api: 'chat' };
    return { meta, records };
  }
}

/**
 * The header's settings. A header written before the settings were recorded has only model, api
 * and system; the last answer's params then tell the temperature, max tokens and options used.
 */
function headerSettings(meta: MetaRecord, records: StoredRecord[]): SavedSettings {
  const settings = savedSettings(meta, { model: '', api: 'chat' });
  const recorded = (['temperature', 'max_tokens', 'options', 'tools'] as const).some((key) => key in meta);
  if (recorded) return settings;
  const lastAnswer = records.findLast((r): r is AssistantRecord => r.type === 'assistant');
  const params = (lastAnswer?.params ?? {}) as Partial<AssistantRecord['params']>;
  if (typeof params.temperature === 'number') settings.temperature = params.temperature;
  if (typeof params.max_tokens === 'number') settings.max_tokens = params.max_tokens;
  if (isObject(params.options)) settings.options = params.options;
  return settings;
}

/**
 * Settings from a record, each field checked for its type (files can be edited by hand): a field
 * of the wrong type is dropped, so flags and config decide it, as for an old file.
 */
function savedSettings(value: Partial<SavedSettings>, fallback: Pick<SavedSettings, 'model' | 'api'>): SavedSettings {
  const out: SavedSettings = {
    model: typeof value.model === 'string' ? value.model : fallback.model,
    api: value.api === 'chat' || value.api === 'messages' ? value.api : fallback.api,
  };
  const take = <K extends keyof SavedSettings>(key: K, ok: (v: unknown) => boolean) => {
    const v = value[key];
    if (v === null || (v !== undefined && ok(v))) out[key] = v as SavedSettings[K];
  };
  take('system', (v) => typeof v === 'string');
  take('temperature', (v) => typeof v === 'number' && Number.isFinite(v));
  take('max_tokens', (v) => Number.isInteger(v) && (v as number) > 0);
  take('options', isObject);
  take('tools', Array.isArray);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A data dir that cannot hold conversations (a regular file in its path, no permission, read-only
 * file system) is a configuration problem, not a bug: one line with the path and the way out,
 * exit 2. create() runs before the request, so nothing has been sent when this is thrown.
 */
function unwritable(dir: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (!isStorageCode(code)) return error as Error;
  return new UsageError(
    `cannot save the conversation: ${dir} is not a writable directory (${code})`,
    'fix it, set GATECHAT_DATA_DIR, or use --no-save',
  );
}

function unreadable(dir: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (!isStorageCode(code)) return error as Error;
  return new UsageError(`cannot read saved conversations: ${dir} is not a readable directory (${code})`, 'fix it or set GATECHAT_DATA_DIR');
}

function isStorageCode(code: string | undefined): code is string {
  return code !== undefined && ['ENOTDIR', 'EEXIST', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ELOOP', 'ENAMETOOLONG', 'EISDIR'].includes(code);
}

/** `20261122-153012-a1b2`: UTC date and time (sorts by creation, whatever the time zone), 4 hex digits. */
export function newCid(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

function titleOf(prompt: string): string {
  const line = prompt.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}

function crashedAnswer(content: string, meta: MetaRecord): AssistantRecord {
  return {
    type: 'assistant',
    ts: '',
    content,
    reasoning: null,
    tool_calls: [],
    status: 'interrupted',
    finish_reason: null,
    raw_finish_reason: null,
    usage: { input_tokens: null, output_tokens: null },
    model: meta.model || null,
    api: meta.api,
    params: { stream: true },
    timings: { first_token_ms: null, total_ms: 0 },
    error: { message: 'gatechat stopped before the answer ended', exit_code: 1 },
  };
}
