import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import type { Attachment, ImageMime } from '../protocol/events.js';
import { UsageError } from '../exit-codes.js';
import { readAllBytes } from './stdin.js';

// SPEC §12 attachments: files read and typed by their bytes (never their names), directories walked,
// and the size limits checked before anything is sent.

const MiB = 1024 * 1024;
/** 5 MiB once base64-encoded: the strictest common image limit. */
export const MAX_IMAGE_BYTES = 3.75 * MiB;
/** All text together, stdin and the prompt included (the same cap as piped stdin, SPEC §1). */
export const MAX_TEXT_BYTES = 8 * MiB;
/** All attachments together. */
export const MAX_ATTACHMENTS_BYTES = 32 * MiB;

/** What `-a -` is called in the message and in saved conversations. */
export const STDIN_NAME = 'stdin';

export type Sniffed = { kind: 'image'; mime: ImageMime } | { kind: 'pdf' } | { kind: 'text'; text: string } | { kind: 'unknown' };

function startsWith(bytes: Uint8Array, signature: number[], offset = 0): boolean {
  // Stryker disable next-line ConditionalExpression,ArithmeticOperator: equivalent — on a short buffer every() fails anyway (bytes[i] is undefined, no byte); the check only saves the loop
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The type from the first bytes: PNG, JPEG, GIF and WebP images, `%PDF`, UTF-8 text without NUL. */
export function sniff(bytes: Uint8Array): Sniffed {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { kind: 'image', mime: 'image/png' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { kind: 'image', mime: 'image/jpeg' };
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return { kind: 'image', mime: 'image/gif' };
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return { kind: 'image', mime: 'image/webp' };
  if (startsWith(bytes, ascii('%PDF-'))) return { kind: 'pdf' };
  if (bytes.includes(0)) return { kind: 'unknown' };
  try {
    // The decoder drops a leading BOM itself (ignoreBOM is false).
    return { kind: 'text', text: utf8.decode(bytes) };
  } catch {
    return { kind: 'unknown' };
  }
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(2).replace(/\.?0+$/, '')} MiB`;
}

/** Bytes → an attachment, or null for a type gatechat cannot send. */
export function attachmentFromBytes(path: string, bytes: Buffer): Attachment | null {
  const type = sniff(bytes);
  switch (type.kind) {
    case 'image':
      return { kind: 'image', path, mime: type.mime, data: bytes.toString('base64'), bytes: bytes.length };
    case 'pdf':
      return { kind: 'pdf', path, data: bytes.toString('base64'), bytes: bytes.length };
    case 'text':
      return { kind: 'text', path, text: type.text };
    case 'unknown':
      return null;
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent — unreachable, every kind has its case above (the never check is for the compiler)
    default: {
      const never: never = type;
      return never;
    }
  }
}

/** Whether a file's first 8 KiB could begin a text file (no NUL, no image or PDF signature). */
function looksLikeText(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(8192);
    const read = readSync(fd, head, 0, head.length, 0);
    const kind = sniff(head.subarray(0, read)).kind;
    // A prefix may end mid-character: only a NUL or a signature says "binary" for sure.
    return kind === 'text' || (kind === 'unknown' && !head.subarray(0, read).includes(0));
  } catch {
    return true; // let the real read report it
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function refuseType(path: string): never {
  throw new UsageError(`cannot attach ${path}: it is not UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF`);
}

function readError(path: string, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (code ?? (error as Error).message);
  return new UsageError(`cannot attach ${path}: ${why}`);
}

/** A file over the whole-attachment limit is refused by its size, before it is read. */
function readFileBounded(path: string, size: number): Buffer {
  if (size > MAX_ATTACHMENTS_BYTES) {
    throw new UsageError(`cannot attach ${path}: it is ${mib(size)}, over the ${mib(MAX_ATTACHMENTS_BYTES)} limit for all attachments`);
  }
  try {
    return readFileSync(path);
  } catch (error) {
    throw readError(path, error);
  }
}

export interface ReadAttachmentsOptions {
  /** Where `-` reads from. */
  stdin?: NodeJS.ReadableStream;
  /**
   * Where the line naming skipped links goes (stderr, a chat notice). Required, so that no caller can
   * skip links without saying so.
   */
  warn: (line: string) => void;
  /**
   * `!<command>` runs the command (SPEC §18). Only where the user typed it (-a, /attach): never for
   * `@path` in a message (pasted text could hold `@!…`) nor a batch file's `"attach"`, where `!` is
   * just the start of a file name.
   */
  commands?: boolean;
  /**
   * Fetches an `http(s)://` value (SPEC §18; session/url-input.ts over the session's connection). Given
   * where commands run, for the same reason; elsewhere a URL is a file name like any other.
   */
  fetchUrl?: (url: string) => Promise<Attachment>;
}

/** Names shown in the skipped-links line; a tree full of links is summarised after these. */
const MAX_NAMED_LINKS = 20;

/** `skipped 2 links that leave repo/: config.txt, notes.md` (SPEC §20). */
export function skippedLinksLine(root: string, links: string[]): string {
  const named = links.slice(0, MAX_NAMED_LINKS).join(', ') + (links.length > MAX_NAMED_LINKS ? `, and ${links.length - MAX_NAMED_LINKS} more` : '');
  // Stryker disable next-line LogicalOperator: equivalent on POSIX, where sep is '/' and && agrees with || (they differ only for a Windows root ending in a backslash)
  const dir = root.endsWith('/') || root.endsWith(sep) ? root : `${root}/`;
  return links.length === 1 ? `skipped 1 link that leaves ${dir}: ${named}` : `skipped ${links.length} links that leave ${dir}: ${named}`;
}

/**
 * `-a` values in order → attachments. A file is refused (UsageError, the file named) when its type
 * is none gatechat sends; a directory gives its text files (recursively, .gitignore honoured, dot
 * entries skipped) and quietly leaves out the rest. Limits: see checkAttachmentLimits().
 */
export async function readAttachments(paths: string[], options: ReadAttachmentsOptions): Promise<Attachment[]> {
  const attachments: Attachment[] = [];
  for (const path of paths) {
    if (path === '-') {
      if (!options.stdin) throw new UsageError('cannot attach -: there is no stdin here');
      const bytes = await readAllBytes(options.stdin, MAX_ATTACHMENTS_BYTES, () => {
        throw new UsageError(`cannot attach ${STDIN_NAME}: it is over the ${mib(MAX_ATTACHMENTS_BYTES)} limit for all attachments`);
      });
      attachments.push(attachmentFromBytes(STDIN_NAME, bytes) ?? refuseType(STDIN_NAME));
      continue;
    }
    if (options.fetchUrl && /^https?:\/\//i.test(path)) {
      attachments.push(await options.fetchUrl(path));
      checkAttachmentLimits(attachments, '');
      continue;
    }
    if (options.commands && path.startsWith('!')) {
      // `-a '!git diff'`: the command's output (SPEC §18); its module is loaded only then.
      const { runCommandInput } = await import('./command-input.js');
      attachments.push(await runCommandInput(path));
      checkAttachmentLimits(attachments, '');
      continue;
    }
    let stat;
    try {
      stat = statSync(path);
    } catch (error) {
      throw readError(path, error);
    }
    if (stat.isDirectory()) {
      // The .gitignore matcher is loaded only when a directory is attached.
      const { listTextFileCandidates } = await import('./attachment-walk.js');
      const listing = listTextFileCandidates(path);
      if (listing.skippedLinks.length > 0) options.warn(skippedLinksLine(path, listing.skippedLinks));
      const found = listing.files.flatMap(({ path: file, size }) => {
        // A big binary (a video, a database) in the tree is left out like any binary, unread.
        if (size > MAX_TEXT_BYTES && !looksLikeText(file)) return [];
        const attachment = attachmentFromBytes(file, readFileBounded(file, size));
        return attachment?.kind === 'text' ? [attachment] : [];
      });
      if (found.length === 0) throw new UsageError(`cannot attach ${path}: the directory holds no text files (dot entries and .gitignore'd files are skipped)`);
      attachments.push(...found);
    } else {
      attachments.push(attachmentFromBytes(path, readFileBounded(path, stat.size)) ?? refuseType(path));
    }
    // Stop reading as soon as the total is over: a big directory is refused early.
    checkAttachmentLimits(attachments, '');
  }
  return attachments;
}

/**
 * SPEC §12 limits, checked before anything is sent: an image over 3.75 MiB; all text (the text
 * attachments and the message's own text, stdin included) over 8 MiB; all attachments over
 * 32 MiB. The error names the file that crossed the line.
 */
export function checkAttachmentLimits(attachments: readonly Attachment[], messageText: string): void {
  let text = Buffer.byteLength(messageText);
  let all = 0;
  for (const a of attachments) {
    const size = a.kind === 'text' ? Buffer.byteLength(a.text) : a.bytes;
    all += size;
    if (a.kind === 'image' && a.bytes > MAX_IMAGE_BYTES) {
      throw new UsageError(
        `cannot attach ${a.path}: the image is ${mib(a.bytes)}, over the ${mib(MAX_IMAGE_BYTES)} limit for images (5 MiB once base64-encoded)`,
        'scale it down or convert it to JPEG',
      );
    }
    if (a.kind === 'text') {
      text += size;
      if (text > MAX_TEXT_BYTES) {
        throw new UsageError(`cannot attach ${a.path}: with it the text (stdin and the prompt included) is over the ${mib(MAX_TEXT_BYTES)} limit`);
      }
    }
    if (all > MAX_ATTACHMENTS_BYTES) {
      throw new UsageError(`cannot attach ${a.path}: with it the attachments are over the ${mib(MAX_ATTACHMENTS_BYTES)} limit for all attachments`);
    }
  }
}
