import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  linkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errnoOf, fsFailure } from './storage-error.js';

// How gatechat writes the files it owns (config, conversations, blobs, input history, caches, the
// ledger), SPEC §20 "Own files". One place, so no store can get one of these wrong:
// - a whole file is written to an exclusive temp file with an unpredictable name beside it, then
//   renamed over it: readers see the old file or the new one, and a symlink planted at the temp name
//   (or the target) is never written through;
// - a log (conversation, history, ledger) gets one record per write() on an O_APPEND descriptor: many
//   processes can append at once without a lock, and a short write is an error, never a silent tear;
// - nothing is opened through a symlink planted in an own file's place (O_NOFOLLOW);
// - files are 0600 and directories 0700, whatever the umask.
// Errors are thrown as they come (errno codes); callers turn them into one line with storageError().

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

// O_NOFOLLOW and O_NONBLOCK are undefined on Windows, where this kind of link planting does not apply.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO planted in a file's place would block an open for reading forever; regular files ignore it.
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * mkdir -p with 0700 for every directory it creates (conversations are private). A directory that
 * already existed keeps the mode its owner gave it.
 */
export function ensurePrivateDir(dir: string): void {
  const firstCreated = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // mode is filtered by the umask; an unusual umask (e.g. 0o277) must not leave it unusable or wider.
  if (firstCreated !== undefined && process.platform !== 'win32') chmodSync(dir, PRIVATE_DIR_MODE);
}

export type OpenPurpose = 'read' | 'append' | 'append-or-create';

/**
 * Opens an own file without following a symlink in its place (ELOOP), and only a regular file
 * (ENOTREG; EISDIR for a directory). Appending descriptors are O_APPEND and can read (the last byte).
 */
export function openOwnFile(path: string, purpose: OpenPurpose): number {
  const flags =
    purpose === 'read'
      ? constants.O_RDONLY | NOFOLLOW | NONBLOCK
      : constants.O_RDWR | constants.O_APPEND | NOFOLLOW | NONBLOCK | (purpose === 'append-or-create' ? constants.O_CREAT : 0);
  const fd = openSync(path, flags, PRIVATE_FILE_MODE);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw fsFailure('EISDIR', path);
    if (!stat.isFile()) throw fsFailure('ENOTREG', path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** The whole file, read through openOwnFile(). */
export function readOwnBytes(path: string): Buffer {
  const fd = openOwnFile(path, 'read');
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The whole file as text, read through openOwnFile(). */
export function readOwnFile(path: string): string {
  return readOwnBytes(path).toString('utf8');
}

/** readOwnFile(), or null when there is no such file. */
export function readOwnFileIfExists(path: string): string | null {
  try {
    return readOwnFile(path);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Appends one record as one write() to an O_APPEND descriptor, so records of concurrent writers never
 * interleave. After a torn line (a crash mid-write) the record starts on a line of its own, or it
 * would be glued to the fragment. A short write (disk full, size limit) throws: the record is torn.
 * `durable`: fsync before returning (conversations: a crash never loses an acknowledged record).
 */
export function appendOwnRecord(path: string, line: string, options: { create?: boolean; durable?: boolean } = {}): void {
  const fd = openOwnFile(path, options.create ? 'append-or-create' : 'append');
  try {
    appendToDescriptor(fd, fstatSync(fd), path, line, options);
  } finally {
    closeSync(fd);
  }
}

/**
 * appendOwnRecord()'s write, on a descriptor opened by openOwnFile() for appending and just fstat'ed.
 * `ownEnd`: where the file ended after this descriptor's last record; a file still that size ends with
 * that record's newline, so its last byte need not be read. Returns where the file ends after this
 * record if nobody wrote between the fstat and the write (if somebody did, the sizes differ next time).
 */
function appendToDescriptor(
  fd: number,
  stat: { size: number; mode: number },
  path: string,
  line: string,
  options: { create?: boolean; durable?: boolean },
  ownEnd = -1,
): number {
  const { size, mode } = stat;
  // Just created (the umask may have taken bits off 0600, e.g. 0o277 leaves 0400): ours to set.
  if (options.create && size === 0 && (mode & 0o777) !== PRIVATE_FILE_MODE && process.platform !== 'win32') fchmodSync(fd, PRIVATE_FILE_MODE);
  let prefix = '';
  if (size > 0 && size !== ownEnd) {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 0x0a) prefix = '\n';
  }
  const bytes = Buffer.from(`${prefix}${line.endsWith('\n') ? line : `${line}\n`}`);
  writeRecord(fd, bytes, path);
  if (options.durable) fsyncSync(fd);
  return size + bytes.length;
}

/**
 * appendOwnRecord() for a log that takes many records in one run (a batch's ledger): the directory is
 * made and the file opened once, not per record — the same one write() per record on an O_APPEND
 * descriptor, the same fresh line after a torn one. A file removed meanwhile (no links left) is
 * opened again (created), so records never go to a file nobody can read; a failed append lets the
 * descriptor go, and the next record starts from the open again.
 */
export class OwnLogAppender {
  #fd: number | null = null;
  /** Where the file ended after our last record (-1: unknown): spares a read of its last byte per record. */
  #end = -1;

  constructor(
    private readonly path: string,
    private readonly dir: string,
  ) {}

  append(line: string): void {
    try {
      let fd = this.#fd ?? this.#open();
      let stat = fstatSync(fd);
      if (stat.nlink === 0) {
        this.close();
        fd = this.#open();
        stat = fstatSync(fd);
      }
      this.#end = appendToDescriptor(fd, stat, this.path, line, { create: true }, this.#end);
    } catch (error) {
      this.close();
      throw error;
    }
  }

  close(): void {
    this.#end = -1;
    if (this.#fd === null) return;
    const fd = this.#fd;
    this.#fd = null;
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
  }

  #open(): number {
    ensurePrivateDir(this.dir);
    this.#fd = openOwnFile(this.path, 'append-or-create');
    return this.#fd;
  }
}

/**
 * Creates a new file holding `line`, 0600 whatever the umask: a log's header (`durable`: fsynced), or a
 * lock's owner. EEXIST when the name is taken, never through a link. The file appears with its record
 * already in it — written to a temp file, then hard-linked into place (link() fails with EEXIST as
 * O_EXCL does): created empty and then written, a listing could see it empty (and warn of a damaged
 * conversation), and a process killed in between left a name holding nothing. A file system without
 * hard links gets the exclusive create.
 */
export function createOwnFile(path: string, line: string, options: { durable?: boolean } = {}): void {
  const temp = tempNameFor(path);
  createExclusive(temp, line, options);
  try {
    linkSync(temp, path);
  } catch (error) {
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(errnoOf(error) ?? '')) throw error;
    createExclusive(path, line, options);
  } finally {
    unlinkQuietly(temp);
  }
}

/** A new file (O_EXCL, never through a link) holding `line`; removed again if it could not be written whole. */
function createExclusive(path: string, line: string, options: { durable?: boolean }): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, PRIVATE_FILE_MODE);
  let written = false;
  try {
    if (process.platform !== 'win32') fchmodSync(fd, PRIVATE_FILE_MODE);
    writeRecord(fd, Buffer.from(line), path);
    if (options.durable) fsyncSync(fd);
    written = true;
  } finally {
    closeSync(fd);
    // Half a record (disk full) would hold the name with nothing whole in it: the caller's error says why.
    if (!written) unlinkQuietly(path);
  }
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or never there.
  }
}

/**
 * One write() of a whole record to an appending descriptor. A short count means the file could not
 * grow (disk full, quota, size limit): the rest is written once more only to learn why — that write
 * fails with the cause (ENOSPC, EFBIG …), which is what is thrown. If it succeeds after all, the
 * record is whole and nothing is thrown.
 */
export function writeRecord(fd: number, bytes: Buffer, path: string): void {
  const written = writeSync(fd, bytes);
  if (written === bytes.length) return;
  const rest = writeSync(fd, bytes.subarray(written));
  if (written + rest !== bytes.length) throw fsFailure('ESHORT', `${path}: ${written + rest} of ${bytes.length} bytes`);
}

/** Every byte of `bytes` at the descriptor's position (a file of our own that nobody else writes). */
function writeAll(fd: number, bytes: Buffer, path: string): void {
  let offset = 0;
  while (offset < bytes.length) {
    const n = writeSync(fd, bytes, offset);
    if (n === 0) throw fsFailure('ESHORT', `${path}: ${offset} of ${bytes.length} bytes`);
    offset += n;
  }
}

/** An unpredictable name beside `path`: a neighbour cannot plant a link where it will be created. */
export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(12).toString('base64url')}.tmp`);
}

/**
 * Replaces `path` whole: an exclusive (O_EXCL, so never through a link) temp file with an
 * unpredictable name beside it, written, fsynced, 0600, then renamed over `path` (rename replaces a
 * link planted at `path` instead of writing through it). On failure the temp file is removed.
 */
export function writeFileAtomic(path: string, data: string | Buffer, options: { mode?: number; durable?: boolean } = {}): void {
  const mode = options.mode ?? PRIVATE_FILE_MODE;
  const temp = tempNameFor(path);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
  let renamed = false;
  try {
    writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data, temp);
    // The umask may have taken bits away (0o277 would leave 0400); the mode is ours to choose.
    if (process.platform !== 'win32') fchmodSync(fd, mode);
    if (options.durable ?? true) fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        closeSync(fd);
      } catch {
        // Closed already.
      }
      unlinkQuietly(temp);
    }
  }
}
