import { embeddedJson, singleLine, withoutStackTrace } from './error-message.js';
import { isRecord, nonEmptyString, numberOrNull, stringOrNull, tryParseJson, type JsonObject } from './json.js';

export interface ErrorBodyInfo {
  message: string;
  code: string | number | null;
  type: string | null;
  param: string | null;
}

export interface StreamErrorInfo {
  code: string | number | null;
  message: string;
  status: number | null;
}

const MAX_LINE = 200;
/** SPEC §4: the gateway's message in an error line is about 300 characters at most (-v shows it all). */
const MAX_MESSAGE = 300;
/** A JSON error inside a message string inside … : deeper than this is not worth unwrapping. */
const MAX_NESTING = 4;

interface Envelope extends ErrorBodyInfo {
  status: number | null;
}

function clip(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function firstLine(text: string): string {
  const line = text.split(/\r?\n|\r/).find((l) => l.trim() !== '') ?? '';
  return clip(line, MAX_LINE);
}

/** FastAPI-style `detail`: a string, or a list of `{msg}` validation errors. */
function detailMessage(detail: unknown): string | null {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail
      .map((d) => (isRecord(d) ? stringOrNull(d.msg) : typeof d === 'string' ? d : null))
      .filter((m): m is string => m !== null && m !== '');
    return parts.length > 0 ? parts.join('; ') : null;
  }
  return null;
}

/** OpenRouter's `metadata.raw`: the upstream provider's own words, sometimes a JSON error body. */
function upstreamRaw(metadata: unknown): string | null {
  if (!isRecord(metadata)) return null;
  const raw = metadata.raw;
  if (isRecord(raw)) return readEnvelope(raw)?.message ?? null;
  const text = nonEmptyString(raw);
  // A JSON error body as a string is read by innermost() like any JSON inside a message.
  return text === null ? null : innermost(text);
}

/**
 * The innermost message of a gateway's message string: its stack trace dropped, and an upstream's
 * JSON error inside it read for that error's own message (keeping the wrapper's words before it,
 * which name the provider, when there is room).
 */
function innermost(text: string, depth = 0): string {
  const message = withoutStackTrace(text);
  if (depth >= MAX_NESTING) return message;
  const embedded = embeddedJson(message);
  if (embedded === null || !isRecord(embedded.value)) return message;
  const inner = readEnvelope(embedded.value, depth + 1);
  if (inner === null) return message;
  const before = embedded.before.replace(/:$/, '').trim();
  if (before === '' || before.length + inner.message.length + 2 > MAX_MESSAGE) return inner.message;
  return `${before}: ${inner.message}`;
}

function codeOf(value: unknown): string | number | null {
  if (typeof value === 'string' && value !== '') return value;
  return numberOrNull(value);
}

/** The one reader of error envelopes, for HTTP error bodies and errors inside streams alike. */
function readEnvelope(obj: JsonObject, depth = 0): Envelope | null {
  // OpenAI / OpenRouter / Anthropic put the details under `error`; some gateways put them at the
  // top; claude-code-router's stream errors put them under `message`.
  const inner: JsonObject = isRecord(obj.error) ? obj.error : isRecord(obj.message) ? obj.message : obj;
  let message =
    nonEmptyString(inner.message) ??
    detailMessage(inner.detail) ??
    (typeof obj.error === 'string' ? obj.error : null) ??
    nonEmptyString(obj.message) ??
    detailMessage(obj.detail);
  const raw = upstreamRaw(inner.metadata);
  if (raw !== null) message = message === null ? raw : `${message}: ${raw}`;
  if (message === null) return null;
  message = innermost(message, depth);
  const code = codeOf(inner.code);
  const status = numberOrNull(inner.status_code) ?? numberOrNull(inner.status) ?? (typeof code === 'number' ? code : null);
  return {
    message,
    code,
    type: stringOrNull(inner.type),
    param: stringOrNull(inner.param),
    status,
  };
}

function decodeEntities(text: string): string {
  return text
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .replace(/&amp;/gi, '&');
}

function innerText(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

function looksLikeHtml(body: string, contentType: string | undefined): boolean {
  // Stryker disable next-line StringLiteral: equivalent — any stand-in for a missing content type without "html" in it
  if (/html/i.test(contentType ?? '')) return true;
  return /^\s*<(!doctype\s+html|html|head|body|title|h[1-6])\b/i.test(body);
}

/** Proxies answer with whole HTML pages; the title or first heading is all a user needs. */
function summarizeHtml(body: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body);
  const heading = /<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>/i.exec(body);
  for (const match of [title, heading]) {
    const text = match === null ? '' : innerText(match[1]);
    if (text !== '') return `HTML error page: ${clip(text, MAX_LINE)}`;
  }
  const withoutScripts = body.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ');
  const text = innerText(withoutScripts);
  return text === '' ? 'HTML error page' : `HTML error page: ${clip(text, MAX_LINE)}`;
}

/** The gateway's own words from an HTTP error body, whatever envelope (or none) it came in. */
export function describeErrorBody(body: string, contentType: string | undefined): ErrorBodyInfo {
  const empty: ErrorBodyInfo = { message: '', code: null, type: null, param: null };
  if (body.trim() === '') return empty;
  const parsed = tryParseJson(body);
  if (parsed.ok) {
    if (isRecord(parsed.value)) {
      const env = readEnvelope(parsed.value);
      if (env !== null) return { message: singleLine(env.message, MAX_MESSAGE), code: env.code, type: env.type, param: env.param };
    }
    if (typeof parsed.value === 'string') return { ...empty, message: firstLine(withoutStackTrace(parsed.value)) };
    return { ...empty, message: clip(JSON.stringify(parsed.value), MAX_LINE) };
  }
  if (looksLikeHtml(body, contentType)) return { ...empty, message: summarizeHtml(body) };
  return { ...empty, message: firstLine(withoutStackTrace(body)) };
}

/**
 * An error object inside a 200 stream: `{error:{message,code,status_code}}` (Chat Completions
 * `event: error`), a chunk's `error` field `{code,message}`, or Anthropic's
 * `{type:'error',error:{type,message}}`. A string payload (non-JSON `data:`) is its own message.
 */
export function describeStreamError(payload: unknown): StreamErrorInfo {
  if (typeof payload === 'string') return { code: null, message: firstLine(payload) || 'stream error', status: null };
  if (isRecord(payload)) {
    const env = readEnvelope(payload);
    if (env !== null) return { code: env.code ?? env.type, message: singleLine(env.message, MAX_MESSAGE), status: env.status };
    const inner = isRecord(payload.error) ? payload.error : payload;
    return {
      code: codeOf(inner.code) ?? stringOrNull(inner.type),
      message: 'stream error (no message)',
      status: numberOrNull(inner.status_code) ?? numberOrNull(inner.status),
    };
  }
  return { code: null, message: 'stream error (no message)', status: null };
}
