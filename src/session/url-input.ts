import { UsageError } from '../exit-codes.js';
import type { Attachment } from '../protocol/events.js';
import { sendRequest, type Connection } from '../transport/http.js';
import { statusText } from '../transport/status-text.js';
import { sniff } from './attachments.js';

// SPEC §18 URLs: `-a https://…` (and /attach) fetch the page through gatechat's own transport — the
// same proxy, timeouts and retries as the gateway's requests, never its credentials — and attach it.

/** A page (or file) is read up to this; more is refused, never cut. */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024;

export const isUrlInput = (value: string): boolean => /^https?:\/\//i.test(value);

/** What the gateway's connection lends a page fetch: how to get there, never what to say there. */
export type WebAccess = Pick<Connection, 'timeouts' | 'retries' | 'proxy'>;

const ACCEPT = 'text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.9,image/*;q=0.8,*/*;q=0.5';

function contentType(headers: Record<string, string>): { mime: string; charset: string | null } {
  const raw = headers['content-type'] ?? '';
  const mime = raw.split(';')[0]!.trim().toLowerCase();
  // The group is not optional in the pattern: when it matches, it is set.
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(raw)?.[1]!.toLowerCase() ?? null;
  return { mime, charset };
}

function looksLikeHtml(mime: string, bytes: Buffer): boolean {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return true;
  if (mime !== '' && mime !== 'application/octet-stream' && mime !== 'text/plain') return false;
  return /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i.test(bytes.subarray(0, 1024).toString('latin1'));
}

function decode(bytes: Buffer, charset: string | null, fatal: boolean): string | null {
  try {
    return new TextDecoder(charset ?? 'utf-8', { fatal }).decode(bytes);
  } catch {
    return null;
  }
}

/** The body, refused past MAX_PAGE_BYTES as soon as it gets there. */
async function readPage(url: string, body: AsyncIterable<Uint8Array>, close: () => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > MAX_PAGE_BYTES) {
      close();
      throw new UsageError(`cannot attach ${url}: the page is over the ${MAX_PAGE_BYTES / (1024 * 1024)} MiB limit`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks, total);
}

/**
 * GET `url` and make it an attachment headed by the URL: an HTML page as its readable article in
 * Markdown (web-page.ts, loaded only here), PDFs and images as files, other text as text. Every failure
 * is a UsageError (exit 2), one line naming the URL: nothing is sent.
 */
export async function fetchUrlAttachment(url: string, web: WebAccess, log?: (line: string) => void): Promise<Attachment> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`cannot attach ${url}: not a valid URL`);
  }
  // A page's own connection: no API key, no -H headers (they are the gateway's), the same route and limits.
  // Stryker disable next-line StringLiteral: equivalent — the mode only picks the header for an API key, and a page's connection has none
  const conn: Connection = { baseUrl: parsed.toString(), auth: 'bearer', headers: { Accept: ACCEPT }, timeouts: web.timeouts, retries: web.retries, proxy: web.proxy };
  let bytes: Buffer;
  let headers: Record<string, string>;
  try {
    // Stryker disable next-line StringLiteral: equivalent — a single request goes out through node:http, which sends an empty method as GET
    const response = await sendRequest({ conn, method: 'GET', path: '', log });
    headers = response.headers;
    // Stryker disable next-line ArrowFunction: equivalent — the throw leaves readPage's for-await, which returns the body iterator, and its finally already destroys the response and its agent
    bytes = await readPage(url, response.body, () => response.close());
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot attach ${url}: ${pageError(error)}`);
  }

  const { mime, charset } = contentType(headers);
  const sniffed = sniff(bytes);
  if (sniffed.kind === 'image') return { kind: 'image', path: url, mime: sniffed.mime, data: bytes.toString('base64'), bytes: bytes.length };
  if (sniffed.kind === 'pdf') return { kind: 'pdf', path: url, data: bytes.toString('base64'), bytes: bytes.length };
  if (looksLikeHtml(mime, bytes)) {
    const html = decode(bytes, charset, false);
    if (html === null) throw new UsageError(`cannot attach ${url}: unknown charset ${charset}`);
    const { readablePage } = await import('./web-page.js');
    const text = readablePage(html, url);
    // Stryker disable next-line MethodExpression: equivalent — readablePage trims: its text is empty or starts with non-space
    if (!text.trim()) throw new UsageError(`cannot attach ${url}: the page has no readable text`);
    return { kind: 'text', path: url, text };
  }
  // Text in the charset it says it is in; without one, only UTF-8 (images and PDFs went above). Never with a NUL.
  const text = bytes.includes(0) ? null : decode(bytes, charset, true);
  if (text === null) throw new UsageError(`cannot attach ${url}: it is not an HTML page, UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF`);
  return { kind: 'text', path: url, text };
}

/** A transport error as the rest of a line about the page: its status, or what went wrong on the way. */
function pageError(error: unknown): string {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') {
    const phrase = statusText(status);
    return `HTTP ${status}${phrase ? ` ${phrase}` : ''}`;
  }
  return ((error as Error).message ?? String(error)).replace(/\bthe gateway\b/g, 'the site');
}
