import { ExitCode, GatechatError } from '../exit-codes.js';

// What a failed file operation means to the user. A storage fault is never a bug of gatechat: it is one
// line naming the file and the cause (the disk is full, read-only, a directory in the way), exit 2
// (SPEC §4), whatever was printed before it staying printed.

/** The errno codes a file operation can fail with that the user can do something about. */
const CAUSES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file would grow past the size this process may write',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a directory',
  ERR_FS_EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is not a directory',
  // O_NOFOLLOW on a symlink: ELOOP on Linux and macOS, EMLINK on FreeBSD.
  ELOOP: 'it is a symbolic link, which gatechat does not follow for its own files',
  EMLINK: 'it is a symbolic link, which gatechat does not follow for its own files',
  ENOTREG: 'it is not a regular file',
  EEXIST: 'it already exists',
  ENOENT: 'it or a directory above it does not exist',
  ENAMETOOLONG: 'the name is too long',
  EIO: 'the disk reported an input/output error',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  ESHORT: 'only part of it could be written',
};

/** A file gatechat could not read or write: one clear line, exit 2. */
export class StorageError extends GatechatError {
  constructor(
    message: string,
    hint?: string,
    /** The errno code behind it (ENOSPC, EACCES, …), when there is one. */
    readonly code?: string,
  ) {
    super(message, ExitCode.usage, hint);
    this.name = 'StorageError';
  }
}

export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for a file-system failure with a cause worth telling (as opposed to a bug). */
export function isStorageFailure(error: unknown): error is NodeJS.ErrnoException {
  const code = errnoOf(error);
  return code !== undefined && code in CAUSES;
}

export function describeCause(code: string): string {
  return `${CAUSES[code] ?? 'it failed'} (${code})`;
}

/**
 * `doing` says what failed and leads to the path ("cannot save the conversation to"): one line
 * `cannot save the conversation to /…/x.jsonl: the disk is full (ENOSPC)`. Anything that is not a
 * file-system failure (a bug) is returned as it is, so it still reads as one.
 */
export function storageError(error: unknown, doing: string, path: string, hint?: string): Error {
  if (error instanceof StorageError) return error;
  const code = errnoOf(error);
  if (code === undefined || !(code in CAUSES)) return error as Error;
  return new StorageError(`${doing} ${path}: ${describeCause(code)}`, hintFor(code) ?? hint, code);
}

function hintFor(code: string): string | undefined {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'free some space';
    case 'ELOOP':
    case 'EMLINK':
      return 'remove the link if you did not put it there';
    default:
      return undefined;
  }
}

/** An error with an errno-style code, for causes we detect ourselves (a short write, not a regular file). */
export function fsFailure(code: 'ESHORT' | 'ENOTREG' | 'EISDIR', detail: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${detail}`), { code });
}
