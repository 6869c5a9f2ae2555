import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Api } from '../protocol/events.js';
import { tryParseJson } from '../protocol/json.js';
import { lockFile } from '../storage/file-lock.js';
import { openOwnFile, writeFileAtomic } from '../storage/own-files.js';
import { isStorageFailure, StorageError } from '../storage/storage-error.js';
import { parseRecords } from './conversation-parse.js';
import { isObject, titleOf, type ConversationSummary } from './conversation-records.js';

// The history index (SPEC §17 "Scale"): what `history list` shows of each conversation, and the text
// `history list TEXT` searches, kept in one file beside the conversations so a listing never reads
// whole conversation files. It is a cache, never the truth: each entry remembers the file's inode,
// size and mtime, and a file that changed since is read again — only the bytes appended since (the
// files are append-only logs), or whole when it was replaced, shrank or its first bytes differ (an
// edit by hand). A missing, damaged or foreign index is rebuilt. Writers of conversations never touch
// it, so a one-shot pays nothing; a listing that changed something writes it back whole (temp file +
// rename: readers see the old index or the new one) under a lock it does not wait for — when another
// listing holds it, that one is writing the same facts.

const INDEX_FILE = 'history-index.json';
const INDEX_VERSION = 2;
/** Read size when folding a file: memory stays flat whatever the size of the conversation. */
const CHUNK_BYTES = 1 << 20;
/** The start of a file whose hash tells an appended file from an edited one. */
const HEAD_BYTES = 4096;
/** `history list TEXT` searches the model, the system prompt and the prompts: this much of each… */
const SEARCH_PIECE = 300;
/** …and this much per conversation in all, so the index stays small beside 1 GB of conversations. */
export const SEARCH_LIMIT = 2000;
/** A file with more problems than this is named with the first ones (the warning stays one line). */
const PROBLEM_LIMIT = 10;

interface IndexEntry {
  ino: number;
  size: number;
  mtimeMs: number;
  /** Bytes folded so far: always whole lines (a line being written or torn at the end waits). */
  read: number;
  /** Newlines in those bytes: the number of the next line, less one, for problems' line numbers. */
  lines: number;
  /** SHA-1 of the first min(read, HEAD_BYTES) bytes. */
  head: string;
  header: boolean;
  /** Some line held a record (or the header). */
  readable: boolean;
  created: string;
  /** The last record's `ts` (its answer's time, usually): the conversation's `updated`. */
  last: string;
  model: string;
  api: Api;
  turns: number;
  title: string;
  /** Lower case, SEARCH_LIMIT characters at most; undefined until read from the index's last line. */
  search?: string;
  problems: string[];
  /** An unreadable last line without its newline: named now, read again once something follows it. */
  tail: string | null;
}

/** An entry being read from its file: its search text is there to add to. */
type SearchedEntry = IndexEntry & { search: string };

export interface IndexedConversation {
  summary: ConversationSummary;
  /** What the file's reading skipped (`line 4 is not a whole record`): the caller names it in one warning. */
  problems: string[];
  /** False when not one line of the file could be read (no header, no record): nothing to list. */
  readable: boolean;
  /** `history list TEXT`: lower case. */
  mentions(lowerNeedle: string): boolean;
}

export class HistoryIndex {
  private readonly path: string;
  private entries = new Map<string, IndexEntry>();
  private changed = false;
  /** The index file's search texts, parsed only when a listing searches or writes (`searchText()`). */
  private storedSearch: { order: string[]; json: () => Buffer } | null = null;

  constructor(dataDir: string) {
    this.path = join(dataDir, INDEX_FILE);
    this.entries = this.load();
  }

  /**
   * The conversation in `file` as its entry says, brought up to date first when `stat` (its lstat)
   * shows it changed. Errors opening or reading the file are thrown as they come (errno codes).
   */
  conversation(cid: string, file: string, stat: Stats): IndexedConversation {
    let entry = this.entries.get(cid);
    if (!entry || entry.ino !== stat.ino || entry.size !== stat.size || entry.mtimeMs !== stat.mtimeMs) {
      // Its search text first, to fold the appended prompts into (an index that changes is written,
      // which reads them all anyway). An entry whose text the index lost (searchTexts() dropped it) is
      // read whole: folding only the appended bytes into it would leave its earlier prompts unsearchable.
      this.searchTexts();
      entry = this.refresh(cid, file, this.entries.get(cid));
      this.entries.set(cid, entry);
      this.changed = true;
    }
    const found = entry;
    return {
      summary: {
        cid,
        created: found.created,
        updated: found.last || found.created,
        model: found.model,
        api: found.api,
        turns: found.turns,
        title: found.title,
      },
      problems: found.tail ? [...found.problems, found.tail] : found.problems,
      readable: found.readable,
      mentions: (needle) => found.title.toLowerCase().includes(needle) || this.searchOf(cid, file, found).includes(needle),
    };
  }

  private searchOf(cid: string, file: string, entry: IndexEntry): string {
    this.searchTexts(); // once: it does nothing when called again
    if (entry.search !== undefined) return entry.search;
    // The index lost it (a damaged last line): the file is read again.
    const again = this.refresh(cid, file, undefined);
    this.entries.set(cid, again);
    // Stryker disable next-line BooleanLiteral: already true — searchTexts() set it when it dropped this entry's text, the one way here
    this.changed = true;
    return again.search;
  }

  /** `history rm`: the removed conversations' entries (their titles and prompts) leave the index at once. */
  forget(cids: readonly string[], remaining: ReadonlySet<string>): void {
    // Nothing indexed about them (or no index yet): nothing to write.
    if (!cids.some((cid) => this.entries.has(cid))) return;
    this.searchTexts();
    this.save(remaining);
  }

  /** Entries of conversations not in `listed` are dropped; a changed index is written back. */
  save(listed: ReadonlySet<string>): void {
    for (const cid of this.entries.keys()) {
      if (!listed.has(cid)) {
        this.entries.delete(cid);
        this.changed = true;
      }
    }
    if (!this.changed) return;
    let lock;
    try {
      // Stryker disable next-line StringLiteral: `what` names the lock in the error's message, which save() swallows just below
      lock = lockFile(this.path, { waitMs: 0, what: 'the history index' });
    } catch (error) {
      if (error instanceof StorageError || isStorageFailure(error)) return; // another listing is writing it, or the disk refuses: next time
      throw error;
    }
    try {
      // Stryker disable next-line BooleanLiteral,ObjectLiteral: durable only adds an fsync (seen after a power cut, never by a test)
      writeFileAtomic(this.path, this.serialized(), { durable: false });
      this.changed = false;
    } catch (error) {
      // A cache that cannot be written (read-only data dir, full disk) costs time, never the listing.
      if (!isStorageFailure(error)) throw error;
    } finally {
      lock.release();
    }
  }

  /**
   * Three lines: a header, the entries (arrays, no field names: 10 000 of them parse in a few ms), and
   * their search texts in the same order — a listing without TEXT never parses those.
   */
  private serialized(): Buffer {
    this.searchTexts();
    const cids = [...this.entries.keys()];
    const rows = cids.map((cid) => {
      const e = this.entries.get(cid)!;
      return [cid, e.ino, e.size, e.mtimeMs, e.read, e.lines, e.head, e.header, e.readable, e.created, e.last, e.model, e.api, e.turns, e.title, e.problems, e.tail];
    });
    // Stryker disable next-line StringLiteral: never used — searchTexts() just gave each loaded entry its text or dropped it, and a read one has its own
    const search = cids.map((cid) => this.entries.get(cid)!.search ?? '');
    const rowsLine = Buffer.from(`${JSON.stringify(rows)}\n`);
    // The header gives the entries' length: a listing reads them and never the search texts after them.
    const header = `${JSON.stringify({ v: INDEX_VERSION, count: cids.length, bytes: rowsLine.length })}\n`;
    return Buffer.concat([Buffer.from(header), rowsLine, Buffer.from(`${JSON.stringify(search)}\n`)]);
  }

  private load(): Map<string, IndexEntry> {
    let parts: { header: Buffer; rows: Buffer; search: () => Buffer } | null;
    try {
      parts = readIndexParts(this.path);
    } catch (error) {
      if (isStorageFailure(error)) return this.rebuilt();
      throw error;
    }
    if (parts === null) return this.rebuilt();
    const header = valueOf(parts.header);
    const rows = valueOf(parts.rows);
    if (!isObject(header) || header.v !== INDEX_VERSION || !Array.isArray(rows) || rows.length !== header.count) return this.rebuilt();
    const entries = new Map<string, IndexEntry>();
    const order: string[] = [];
    for (const row of rows) {
      const entry = entryOf(row);
      // Stryker disable next-line StringLiteral: a placeholder no entry has as its cid, whatever its text: searchTexts() skips it
      order.push(entry ? (row as [string])[0] : '');
      // An entry of the wrong shape is read again from its file, like a stale one.
      if (entry) entries.set((row as [string])[0], entry);
      else this.changed = true;
    }
    this.storedSearch = { order, json: parts.search };
    return entries;
  }

  /** Gives every entry loaded from the file its search text (once). */
  private searchTexts(): void {
    const stored = this.storedSearch;
    if (!stored) return;
    this.storedSearch = null;
    const texts = valueOf(stored.json());
    const ok = Array.isArray(texts) && texts.length === stored.order.length;
    stored.order.forEach((cid, i) => {
      const entry = this.entries.get(cid);
      if (!entry || entry.search !== undefined) return;
      const text = ok ? (texts as unknown[])[i] : undefined;
      if (typeof text === 'string') entry.search = text;
      else {
        // Lost its search text: read again from its file at the next listing.
        this.entries.delete(cid);
        this.changed = true;
      }
    });
  }

  private rebuilt(): Map<string, IndexEntry> {
    this.changed = true;
    return new Map();
  }

/** Folds what was appended since `old` (or the whole file) into an entry. */
  private refresh(cid: string, file: string, old: IndexEntry | undefined): SearchedEntry {
    const fd = openOwnFile(file, 'read');
    try {
      const stat = { ...statOf(fd) };
      const appended = old && old.ino === stat.ino && stat.size >= old.read && headHash(fd, Math.min(old.read, HEAD_BYTES)) === old.head;
      // Stryker disable next-line StringLiteral: never used — an appended-to entry is one still in the map after searchTexts(), which gave it its text
      const entry: SearchedEntry = appended ? { ...old, search: old.search ?? '', problems: [...old.problems], ...stat, tail: null } : fresh(stat);
      foldFile(entry, cid, fd);
      // A file still inside its first HEAD_BYTES has a longer head now; past them, the head is the same.
      if (!appended || old.read < HEAD_BYTES) entry.head = headHash(fd, Math.min(entry.read, HEAD_BYTES));
      return entry;
    } finally {
      closeSync(fd);
    }
  }
}

function statOf(fd: number): Pick<IndexEntry, 'ino' | 'size' | 'mtimeMs'> {
  // The descriptor's stat, read before the bytes: a later append only makes the entry stale again.
  const stat = fstatSync(fd);
  return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
}

function fresh(stat: Pick<IndexEntry, 'ino' | 'size' | 'mtimeMs'>): SearchedEntry {
  return { ...stat, read: 0, lines: 0, head: '', header: false, readable: false, created: '', last: '', model: '', api: 'chat', turns: 0, title: '', search: '', problems: [], tail: null };
}

/** Reads from `entry.read` to the size in `entry`, in chunks, folding each run of whole lines. */
function foldFile(entry: SearchedEntry, cid: string, fd: number): void {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let offset = entry.read;
  let carry: Buffer = Buffer.alloc(0);
  while (offset < entry.size) {
    const n = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, entry.size - offset), offset);
    if (n === 0) break;
    offset += n;
    const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
    const end = data.lastIndexOf(0x0a) + 1;
    foldLines(entry, cid, data.subarray(0, end)); // no newline yet (end 0): folding nothing changes nothing
    carry = Buffer.from(data.subarray(end));
  }
  if (carry.toString('utf8').trim() === '') return;
  // The last line has no newline: a whole record written by hand is used; a torn one (a crash, or a
  // record still being written) is named and left for the next listing, when a newline may end it.
  const { records, meta, problems } = parseRecords(cid, carry.toString('utf8'), entry.lines + 1);
  if (records.length > 0 || meta) foldLines(entry, cid, carry);
  else entry.tail = problems[0] ?? `line ${entry.lines + 1} is not a whole record`;
}

function foldLines(entry: SearchedEntry, cid: string, bytes: Buffer): void {
  const { meta, records, problems } = parseRecords(cid, bytes.toString('utf8'), entry.lines + 1);
  if (meta || records.length > 0) entry.readable = true;
  if (meta && !entry.header) {
    entry.header = true;
    entry.created = meta.created;
    entry.model = meta.model;
    entry.api = meta.api;
    addSearch(entry, meta.model);
    if (meta.system) addSearch(entry, meta.system);
  }
  // A file without a header (a crash inside create()) is dated by its first record.
  if (!entry.header && entry.created === '' && records[0]) entry.created = records[0].ts;
  for (const record of records) {
    // --title names it (the last one wins); else the first prompt does — unless a title came before it.
    // (Searched apart from the prompts' text: a late rename is found even once that text is full.)
    if (record.type === 'title') entry.title = record.title;
    if (record.type !== 'user') continue;
    if (entry.turns === 0 && entry.title === '') entry.title = titleOf(record.content);
    entry.turns += 1;
    addSearch(entry, record.content);
  }
  if (records.length > 0) entry.last = records[records.length - 1]!.ts;
  for (const problem of problems) if (entry.problems.length < PROBLEM_LIMIT) entry.problems.push(problem);
  entry.read += bytes.length;
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) entry.lines += 1;
}

function addSearch(entry: SearchedEntry, text: string): void {
  const room = SEARCH_LIMIT - entry.search.length;
  if (room <= 1) return;
  entry.search += `${entry.search ? '\n' : ''}${text.slice(0, Math.min(SEARCH_PIECE, room - 1)).toLowerCase()}`;
}

/** The value of a part of the index; undefined when it is not JSON (a damaged index: what reads it rebuilds). */
function valueOf(bytes: Buffer): unknown {
  const parsed = tryParseJson(bytes.toString('utf8'));
  return parsed.ok ? parsed.value : undefined;
}

function headHash(fd: number, bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  const n = readSync(fd, buffer, 0, bytes, 0);
  return createHash('sha1').update(buffer.subarray(0, n)).digest('base64');
}

/** A row of the index file back into an entry (its search text comes later); null when it is not one. */
function entryOf(row: unknown): IndexEntry | null {
  if (!Array.isArray(row) || row.length !== 17) return null;
  const [cid, ino, size, mtimeMs, read, lines, head, header, readable, created, last, model, api, turns, title, problems, tail] = row as unknown[];
  const numbers = [ino, size, mtimeMs, read, lines, turns];
  const strings = [cid, head, created, last, model, title];
  if (!numbers.every((n) => typeof n === 'number') || !strings.every((t) => typeof t === 'string')) return null;
  if (api !== 'chat' && api !== 'messages') return null;
  if (typeof header !== 'boolean' || typeof readable !== 'boolean') return null;
  if (!Array.isArray(problems) || !problems.every((p) => typeof p === 'string')) return null;
  if (tail !== null && typeof tail !== 'string') return null;
  return {
    ino, size, mtimeMs, read, lines, head, header, readable, created, last, model, api, turns, title, problems, tail,
  } as IndexEntry;
}

/**
 * The index file's header line and entries line, read by the length the header gives; the search
 * texts after them are read only when asked for. null: no index (or not one of ours: rebuilt).
 */
function readIndexParts(path: string): { header: Buffer; rows: Buffer; search: () => Buffer } | null {
  // No index yet (ENOENT), like any file-system failure opening it, is rebuilt by load().
  const fd = openOwnFile(path, 'read');
  try {
    const size = fstatSync(fd).size;
    // Stryker disable next-line MethodExpression: Math.max only reads more of the file than the header line needs; the header is found the same
    const start = Buffer.alloc(Math.min(size, 256));
    const n = readSync(fd, start, 0, start.length, 0);
    const newline = start.subarray(0, n).indexOf(0x0a);
    if (newline < 0) return null;
    const header = start.subarray(0, newline);
    const bytes = /"bytes":(\d+)/.exec(header.toString('latin1'));
    const length = bytes ? Number(bytes[1]) : NaN;
    const rowsAt = newline + 1;
    if (!Number.isSafeInteger(length) || rowsAt + length > size) return null;
    const rows = Buffer.allocUnsafe(length);
    if (readSync(fd, rows, 0, length, rowsAt) !== length) return null;
    const searchAt = rowsAt + length;
    const { ino } = fstatSync(fd);
    // Read when a listing searches or writes; if another listing replaced the file meanwhile, the
    // texts are not these entries' (an empty result: the entries are read again from their files).
    const search = (): Buffer => {
      let again: number;
      try {
        again = openOwnFile(path, 'read');
      } catch {
        return Buffer.alloc(0);
      }
      try {
        if (fstatSync(again).ino !== ino) return Buffer.alloc(0);
        // Stryker disable next-line ArithmeticOperator: a larger buffer reads to the end of the file all the same — same inode, and the index is only ever replaced whole (rename), never appended to
        const rest = Buffer.allocUnsafe(Math.max(0, size - searchAt));
        return rest.subarray(0, readSync(again, rest, 0, rest.length, searchAt));
      } finally {
        closeSync(again);
      }
    };
    return { header, rows, search };
  } finally {
    closeSync(fd);
  }
}
