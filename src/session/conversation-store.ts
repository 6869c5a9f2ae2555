import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, unlinkSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import type { Attachment } from '../protocol/events.js';
import type { ToolResultEntry } from './types.js';
import { UsageError } from '../exit-codes.js';
import { appendOwnRecord, createOwnFile, ensurePrivateDir, readOwnFile } from '../storage/own-files.js';
import { lockFile, type FileLock } from '../storage/file-lock.js';
import { errnoOf, isStorageFailure, storageError, StorageError } from '../storage/storage-error.js';
import { BlobStore } from './blob-store.js';
import { isoTimestamp } from './timestamp.js';
import { HistoryIndex } from './history-index.js';
import { parseConversation, type ParsedConversation } from './conversation-parse.js';
import {
  pairTurns,
  type AnswerPartRecord,
  type AssistantRecord,
  type ConversationSummary,
  type LoadedConversation,
  type MetaRecord,
  type SavedSettings,
  type StoredAttachment,
  type StoredRecord,
  type SummaryRecord,
  type TitleRecord,
  type UserRecord,
} from './conversation-records.js';

export type {
  AnswerPartRecord,
  AssistantRecord,
  ConversationSummary,
  LoadedConversation,
  MetaRecord,
  SavedSettings,
  StoredAttachment,
  StoredSummary,
  StoredTurn,
  SummaryRecord,
  UserRecord,
} from './conversation-records.js';

// One append-only JSONL file per conversation (SPEC §6). Every record is one line written by one
// write() on an O_APPEND descriptor and fsynced (storage/own-files.ts), so concurrent runs append
// without a lock and a crash can at worst leave one torn line, which the reader skips; the turns
// before it are never touched again. A damaged file is named in a warning and never stops the others.

/** What callers pass: the store stamps `type` and `ts`. */
export type AssistantInput = Omit<AssistantRecord, 'type' | 'ts'> & { ts?: string };

export interface StoreOptions {
  /** Told once per conversation what was skipped in a damaged file ("warning: conversation …"). */
  warn?: (line: string) => void;
}

// Letters, digits, '-' and '_' only: no '.', no separators, so an id can never leave the directory.
const CID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const SAVE_HINT = 'fix it, set GATECHAT_DATA_DIR, or use --no-save';

export class ConversationStore {
  private readonly root: string;
  private readonly blobs: BlobStore;
  private readonly warned = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly options: StoreOptions = {},
  ) {
    this.root = join(dir, 'conversations');
    this.blobs = new BlobStore(dir);
  }

  /** Writes the header line at once (exclusive create), so the id is taken and listed from then on. */
  create(settings: SavedSettings): string {
    try {
      ensurePrivateDir(this.root);
    } catch (error) {
      throw storageError(error, 'cannot save the conversation in', this.root, SAVE_HINT);
    }
    for (let attempt = 0; ; attempt++) {
      const cid = newCid();
      const record: MetaRecord = { type: 'meta', v: 1, cid, created: isoTimestamp(), ...settings };
      try {
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: durable is an fsync, which only a power loss would show
        createOwnFile(this.file(cid), `${JSON.stringify(record)}\n`, { durable: true });
        return cid;
      } catch (error) {
        // Two ids in the same second with the same 16 random bits: draw again.
        if (errnoOf(error) === 'EEXIST' && attempt < 20) continue;
        throw storageError(error, 'cannot save the conversation to', this.file(cid), SAVE_HINT);
      }
    }
  }

  /**
   * Called before the request is sent, so a crash mid-answer never loses the prompt. Returns the
   * turn's id, which its answer names (appendAssistant's `turn`).
   */
  appendUser(
    cid: string,
    content: string,
    options: { retry?: boolean; supersedes?: string; keep?: boolean; settings?: SavedSettings; attachments?: readonly Attachment[]; toolResults?: ToolResultEntry[] } = {},
  ): string {
    const turn = randomBytes(6).toString('base64url');
    const record: UserRecord = { type: 'user', turn, ts: isoTimestamp(), content };
    if (options.attachments?.length) record.attachments = options.attachments.map((a) => this.storeAttachment(a));
    if (options.retry) record.retry = true;
    if (options.retry && options.supersedes !== undefined) record.supersedes = options.supersedes;
    if (options.retry && options.keep) record.keep = true;
    if (options.settings) record.settings = options.settings;
    if (options.toolResults?.length) record.tool_results = options.toolResults;
    this.append(cid, record);
    return turn;
  }

  private storeAttachment(a: Attachment): StoredAttachment {
    try {
      switch (a.kind) {
        // Stryker disable next-line StringLiteral: a text attachment that misses this case reaches default, which returns it as it is too
        case 'text':
          return a;
        case 'image':
          return { kind: 'image', path: a.path, mime: a.mime, sha256: this.blobs.put(a.data), bytes: a.bytes };
        case 'pdf':
          return { kind: 'pdf', path: a.path, sha256: this.blobs.put(a.data), bytes: a.bytes };
        // Stryker disable next-line ConditionalExpression,BlockStatement: unreachable, the kinds above are all there are (the never check)
        default: {
          const never: never = a;
          return never;
        }
      }
    } catch (error) {
      throw storageError(error, 'cannot save the attachment in', this.blobs.root, SAVE_HINT);
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
  appendAnswerPart(cid: string, content: string, turn?: string): void {
    this.append(cid, { type: 'answer_part', ...(turn !== undefined ? { turn } : {}), ts: isoTimestamp(), content } satisfies AnswerPartRecord);
  }

  /** `--title` (SPEC §17): names the conversation from now on (`history list` shows it, `history list TEXT` finds it). */
  appendTitle(cid: string, title: string): void {
    this.append(cid, { type: 'title', ts: isoTimestamp(), title } satisfies TitleRecord);
  }

  /**
   * `/compact`, `history compact` (SPEC §17): a summary of the first `turns` turns, in their place from now
   * on. Appended like every record (one write, under the file's lock); the turns stay.
   */
  appendSummary(cid: string, record: Omit<SummaryRecord, 'type' | 'ts'>): void {
    this.append(cid, { type: 'summary', ts: isoTimestamp(), ...record } satisfies SummaryRecord);
  }

  /** Called when the turn ends, whatever the status; `record.turn` names the prompt it answers. */
  appendAssistant(cid: string, record: AssistantInput): void {
    // `type` first (then the turn id): a record glued to a torn fragment is found by its start.
    const { turn, ...rest } = record;
    this.append(cid, { type: 'assistant', ...(turn !== undefined ? { turn } : {}), ...rest, ts: record.ts ?? isoTimestamp() } satisfies AssistantRecord);
  }

  load(cid: string): LoadedConversation {
    const { meta, records } = this.read(cid);
    return { meta, ...pairTurns(meta, records) };
  }

  /** The conversation written to most recently (what `-c` continues), or null when there is none. */
  latest(): string | null {
    let best: { cid: string; mtime: number } | null = null;
    // entries() come in id order: `>=` lets the later id win a tie in time.
    for (const { cid, stat } of this.entries()) {
      if (!best || stat.mtimeMs >= best.mtime) best = { cid, mtime: stat.mtimeMs };
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
   * Newest activity first, from the history index (history-index.ts): only files that changed since
   * the last listing are read, and only what was appended to them. `matching`: only conversations
   * whose model, system prompt or prompts contain that text, ignoring case (SPEC §17: the index keeps
   * the first SEARCH_LIMIT characters of them). A file that cannot be read is named in a warning and
   * left out; a damaged one is named and listed as far as it reads; the others are listed.
   */
  list(matching?: string): ConversationSummary[] {
    const index = new HistoryIndex(this.dir);
    const needle = matching?.toLowerCase();
    const summaries: ConversationSummary[] = [];
    const listed = new Set<string>();
    for (const { cid, stat } of this.entries()) {
      let found;
      try {
        found = index.conversation(cid, this.file(cid), stat);
      } catch (error) {
        if (!isStorageFailure(error)) throw error;
        this.warnSkipped(cid, error);
        continue;
      }
      listed.add(cid);
      if (!found.readable) {
        this.warnOnce(cid, `warning: conversation ${cid}: ${found.problems.join('; ') || 'the file is empty'}; skipped`);
        continue;
      }
      if (found.problems.length > 0) this.warnOnce(cid, `warning: conversation ${cid}: ${found.problems.join('; ')}; the rest is used`);
      if (needle && !found.mentions(needle)) continue;
      summaries.push(found.summary);
    }
    index.save(listed);
    return summaries.sort((a, b) => (a.updated === b.updated ? b.cid.localeCompare(a.cid) : b.updated.localeCompare(a.updated)));
  }

  /** Removes the conversation and the blobs no other conversation uses; returns how many blobs went. */
  remove(cid: string): number {
    this.existingFile(cid); // an id that names nothing is a usage error here, not a quiet no-op
    return this.removeAll([cid]).blobs;
  }

  /**
   * Removes conversations (SPEC §17 `history rm`), each under its file's lock, which every append also
   * takes (`append()`): a run continuing one at the same moment either wrote first — then `keep` (given
   * the file's lstat, taken under the lock) can leave it — or finds it gone and saves nothing (its
   * prompt is refused before anything is sent). A file is unlinked whole or not at all; then the
   * index forgets them and the blobs nothing uses any more are collected, once for all of them.
   */
  removeAll(cids: readonly string[], keep?: (stat: Stats) => boolean): { removed: string[]; kept: string[]; blobs: number } {
    const removed: string[] = [];
    const kept: string[] = [];
    for (const cid of cids) {
      if (!CID_PATTERN.test(cid)) throw new UsageError(`not a conversation id: ${JSON.stringify(cid)} (see: gatechat history list)`);
      const path = this.file(cid);
      const lock = this.lockConversation(cid, path);
      try {
        let stat: Stats;
        try {
          stat = lstatSync(path);
        } catch (error) {
          if (errnoOf(error) === 'ENOENT') continue; // removed meanwhile by another rm
          throw error;
        }
        if (keep?.(stat)) {
          kept.push(cid);
          continue;
        }
        // Only ever a file or a link (removed itself, never what it points to): never a whole directory.
        if (stat.isDirectory()) throw Object.assign(new Error(path), { code: 'EISDIR' });
        unlinkSync(path);
        removed.push(cid);
      } catch (error) {
        throw storageError(error, `cannot remove conversation ${cid}:`, path);
      } finally {
        lock?.release();
      }
    }
    if (removed.length === 0) return { removed, kept, blobs: 0 };
    // Their prompts must not outlive them in the index; a listing rewriting the index right now drops them too.
    try {
      new HistoryIndex(this.dir).forget(removed, new Set(this.ids()));
    } catch (error) {
      if (!isStorageFailure(error)) throw error;
    }
    return { removed, kept, blobs: this.collectBlobs() };
  }

  /** Removes the blobs no conversation uses; how many went. */
  private collectBlobs(): number {
    const inUse = new Set<string>();
    for (const { cid: other } of this.entries()) {
      // An unreadable conversation's blobs cannot be told apart: nothing is collected then.
      const parsed = this.readListed(other);
      if (!parsed) return 0;
      for (const record of parsed.records) {
        if (record.type !== 'user') continue;
        for (const a of record.attachments ?? []) if (a.kind !== 'text') inUse.add(a.sha256);
      }
    }
    try {
      return this.blobs.collect(inUse);
    } catch (error) {
      throw storageError(error, 'cannot remove unused attachments from', this.blobs.root);
    }
  }

  /**
   * `history fork` (SPEC §17): a copy of the conversation under a new id — its header (settings,
   * `forked_from`) and every whole record, binary attachments shared through the blob store — ending
   * with a title record, `<title> (fork)`. Later turns of either one never reach the other.
   */
  fork(cid: string, title: (records: readonly StoredRecord[]) => string): string {
    const { meta, records } = this.read(cid);
    try {
      ensurePrivateDir(this.root);
    } catch (error) {
      throw storageError(error, 'cannot save the conversation in', this.root, SAVE_HINT);
    }
    const named: TitleRecord = { type: 'title', ts: isoTimestamp(), title: title(records) };
    for (let attempt = 0; ; attempt++) {
      const copy = newCid();
      const { type: _type, v: _v, cid: _cid, created: _created, ...settings } = meta;
      const header: MetaRecord = { type: 'meta', v: 1, cid: copy, created: named.ts, ...settings, forked_from: cid };
      const lines = [header, ...records, named].map((record) => JSON.stringify(record)).join('\n');
      try {
        // One exclusive create of the whole copy: it is listed whole or not at all.
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: durable is an fsync, which only a power loss would show
        createOwnFile(this.file(copy), `${lines}\n`, { durable: true });
        return copy;
      } catch (error) {
        if (errnoOf(error) === 'EEXIST' && attempt < 20) continue;
        throw storageError(error, 'cannot save the conversation to', this.file(copy), SAVE_HINT);
      }
    }
  }

  /** Every readable record, header first: what `history show --json` prints. */
  records(cid: string): Array<MetaRecord | StoredRecord> {
    const { meta, records } = this.read(cid);
    return [meta, ...records];
  }

  private file(cid: string): string {
    // Not join(): a listing names 10 000 files, and the root is normalised already.
    return `${this.root}${sep}${cid}.jsonl`;
  }

  /** A link in the file's place counts as there (so it can be named and removed), even when it dangles. */
  private existingFile(cid: string): string {
    if (!CID_PATTERN.test(cid)) {
      throw new UsageError(`not a conversation id: ${JSON.stringify(cid)} (see: gatechat history list)`);
    }
    const path = this.file(cid);
    try {
      lstatSync(path);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') throw new UsageError(`no conversation with id ${cid}: see gatechat history list`);
      throw storageError(error, `cannot read conversation ${cid}:`, path);
    }
    return path;
  }

  private ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return [];
      throw storageError(error, 'cannot read saved conversations in', this.root, 'fix it or set GATECHAT_DATA_DIR');
    }
    return names
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => name.slice(0, -'.jsonl'.length))
      .filter((cid) => CID_PATTERN.test(cid))
      .sort();
  }

  /**
   * The conversation files, each with its lstat: what a listing (or, later, an index of them) walks.
   * Anything else in a file's place (a directory, a link) is named once and skipped.
   */
  private entries(): Array<{ cid: string; stat: Stats }> {
    const out: Array<{ cid: string; stat: Stats }> = [];
    for (const cid of this.ids()) {
      let stat: Stats;
      try {
        stat = lstatSync(this.file(cid));
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') this.warnSkipped(cid, error);
        continue; // removed meanwhile
      }
      if (stat.isFile()) out.push({ cid, stat });
      else this.warnSkipped(cid, Object.assign(new Error(), { code: stat.isDirectory() ? 'EISDIR' : stat.isSymbolicLink() ? 'ELOOP' : 'ENOTREG' }));
    }
    return out;
  }

  /** read() for a listing: a file that cannot be read is a warning and null, never the end of the listing. */
  private readListed(cid: string): ParsedConversation | null {
    try {
      return this.read(cid);
    } catch (error) {
      if (!(error instanceof StorageError) && !isStorageFailure(error)) throw error;
      this.warnSkipped(cid, error);
      return null;
    }
  }

  private warnSkipped(cid: string, error: unknown): void {
    const message = storageError(error, `conversation ${cid}:`, this.file(cid)).message;
    this.warnOnce(cid, `warning: ${message}; skipped`);
  }

  private warnOnce(cid: string, line: string): void {
    if (this.warned.has(cid)) return;
    this.warned.add(cid);
    this.options.warn?.(line);
  }

  private append(cid: string, record: StoredRecord): void {
    const path = this.existingFile(cid);
    // Held for the one write only: runs continuing the same conversation take turns for a moment, and
    // `history rm` never removes a file between a run's check and its write (removeAll()).
    const lock = this.lockConversation(cid, path);
    try {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: durable is an fsync, which only a power loss would show
      appendOwnRecord(path, `${JSON.stringify(record)}\n`, { durable: true });
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') {
        throw new StorageError(`conversation ${cid} was removed (gatechat history rm) while this run was using it; nothing more of it is saved`, 'start a new conversation');
      }
      throw storageError(error, 'cannot save the conversation to', path, SAVE_HINT);
    } finally {
      lock?.release();
    }
  }

  /**
   * The conversation file's lock (`<cid>.jsonl.lock`, storage/file-lock.ts). null when the directory takes no
   * lock file (read-only, full): then nothing can be removed from it either, and the write goes ahead alone.
   */
  private lockConversation(cid: string, path: string): FileLock | null {
    try {
      return lockFile(path, { waitMs: 10_000, what: `conversation ${cid}` });
    } catch (error) {
      if (error instanceof StorageError) throw error;
      if (isStorageFailure(error)) return null;
      throw error;
    }
  }

  private read(cid: string): ParsedConversation {
    const path = this.existingFile(cid);
    let text: string;
    try {
      text = readOwnFile(path);
    } catch (error) {
      throw storageError(error, `cannot read conversation ${cid}:`, path);
    }
    const parsed = parseConversation(cid, text);
    if (parsed.problems.length > 0) this.warnOnce(cid, `warning: conversation ${cid}: ${parsed.problems.join('; ')}; the rest is used`);
    return parsed;
  }
}

/** `20261122-153012-a1b2`: UTC date and time (sorts by creation, whatever the time zone), 4 hex digits. */
export function newCid(now: Date = new Date()): string {
  const stamp = isoTimestamp(now).replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}
