import type { Tokens } from './types.js';

// Cycled for lorem-N / slow-N; the answer is the same on every run so tests can assert on it.
const LOREM = (
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et ' +
  'dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ' +
  'ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat ' +
  'nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit ' +
  'anim id est laborum.'
).split(' ');

/** Word i of the lorem answer: the first bare, the rest with their leading space. */
export function loremTokens(count: number): Tokens {
  return { count, at: (i) => (i === 0 ? '' : ' ') + LOREM[i % LOREM.length] };
}

/** big-M: bytes per delta (the last one too: M MiB is a whole number of them). */
export const BIG_DELTA_BYTES = 16 * 1024;
// One pass of the lorem words with the space that joins it to the next, and enough of the next
// passes that any BIG_DELTA_BYTES-long window of the endless text is one slice of it.
const LOREM_CYCLE = `${LOREM.join(' ')} `;
const LOREM_WINDOWS = LOREM_CYCLE.repeat(Math.ceil(BIG_DELTA_BYTES / LOREM_CYCLE.length) + 1);

/**
 * big-M: exactly M MiB of lorem text (the words of lorem-N, single spaces, no newline) in
 * BIG_DELTA_BYTES deltas, cut wherever the byte count falls, mid-word included, as real streams
 * split text. Each delta is a slice of one fixed string: nothing grows with M.
 */
export function bigTokens(mib: number): Tokens {
  return {
    count: (mib * 1024 * 1024) / BIG_DELTA_BYTES,
    at: (i) => {
      const start = (i * BIG_DELTA_BYTES) % LOREM_CYCLE.length;
      return LOREM_WINDOWS.slice(start, start + BIG_DELTA_BYTES);
    },
  };
}

/**
 * JSON text of `value` in pieces, with `text` written token by token where the string `marker`
 * stands: a body too big to be one string (V8 caps strings at ~512 MiB) still goes out whole.
 */
export function* jsonWithText(value: unknown, marker: string, text: Tokens): Generator<string> {
  const whole = JSON.stringify(value);
  const quoted = JSON.stringify(marker);
  const at = whole.indexOf(quoted);
  if (at < 0) throw new Error('jsonWithText: the marker is not in the value');
  yield whole.slice(0, at + 1);
  for (let i = 0; i < text.count; i++) yield JSON.stringify(text.at(i)).slice(1, -1);
  yield whole.slice(at + quoted.length - 1);
}

/** The lorem answer as plain text (what a client reconstructs from loremTokens(count)). */
export function loremText(count: number): string {
  return joinTokens(loremTokens(count));
}

/**
 * One token per word, each carrying the whitespace before it (and the last one the trailing
 * whitespace too), so concatenating the tokens gives the text back byte for byte.
 */
export function tokenize(text: string): string[] {
  const tokens = text.match(/\s*\S+/g) ?? [];
  const consumed = tokens.reduce((n, t) => n + t.length, 0);
  const trailing = text.slice(consumed);
  if (tokens.length === 0) return [];
  tokens[tokens.length - 1] += trailing;
  return tokens;
}

export function tokensOf(list: string[]): Tokens {
  return { count: list.length, at: (i) => list[i] };
}

export const noTokens: Tokens = { count: 0, at: () => '' };

/** The first `count` tokens only (max_tokens cuts). */
export function takeTokens(tokens: Tokens, count: number): Tokens {
  return { count: Math.max(0, Math.min(tokens.count, count)), at: tokens.at };
}

export function joinTokens(tokens: Tokens): string {
  let out = '';
  for (let i = 0; i < tokens.count; i++) out += tokens.at(i);
  return out;
}

export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/** Bytes that base64 text stands for, without decoding it. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - padding;
}

/** `data:<mime>;base64,<data>` → its parts; null for any other URL. */
function dataUrl(url: unknown): { mime: string; bytes: number } | null {
  if (typeof url !== 'string') return null;
  const m = url.match(/^data:([^;,]+);base64,(.*)$/s);
  return m ? { mime: m[1], bytes: base64Bytes(m[2]) } : null;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/**
 * SPEC §9: what `echo` says for a part that is not text — `[image image/png 2048 bytes]`,
 * `[pdf report.pdf 10240 bytes]` — in either interface's form; null for a text part.
 */
export function describePart(b: Record<string, unknown>): string | null {
  switch (b.type) {
    case 'image_url': {
      const url = record(b.image_url).url;
      const parsed = dataUrl(url);
      return parsed ? `[image ${parsed.mime} ${parsed.bytes} bytes]` : `[image ${String(url)}]`;
    }
    case 'file': {
      const file = record(b.file);
      const parsed = dataUrl(file.file_data);
      return `[pdf ${String(file.filename ?? 'file')} ${parsed?.bytes ?? 0} bytes]`;
    }
    case 'image': {
      const source = record(b.source);
      return `[image ${String(source.media_type)} ${typeof source.data === 'string' ? base64Bytes(source.data) : 0} bytes]`;
    }
    case 'document': {
      const source = record(b.source);
      return `[pdf ${String(b.title ?? 'document')} ${typeof source.data === 'string' ? base64Bytes(source.data) : 0} bytes]`;
    }
    default:
      return null;
  }
}

/**
 * Text of a message's content: a string, or its blocks (both interfaces use parts) joined by
 * newlines — text as it is, images and PDFs named.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (block && typeof block === 'object') {
      const b = block as Record<string, unknown>;
      const named = describePart(b);
      if (named !== null) parts.push(named);
      else if (typeof b.text === 'string') parts.push(b.text);
      // tool results count as input words too, whatever their shape
      else if (b.type === 'tool_result') parts.push(contentText(b.content));
    }
  }
  return parts.join('\n');
}

function messagesOf(body: Record<string, unknown>): Record<string, unknown>[] {
  const messages = body.messages;
  return Array.isArray(messages) ? messages.filter((m): m is Record<string, unknown> => !!m && typeof m === 'object') : [];
}

/** What `echo` repeats: the text of the last user message. */
export function lastUserText(body: Record<string, unknown>): string {
  const messages = messagesOf(body);
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') return contentText(messages[i].content);
  }
  return '';
}

/** Usage: words in every message plus the (Messages) top-level system prompt. */
export function inputWords(body: Record<string, unknown>): number {
  let words = countWords(contentText(body.system));
  for (const message of messagesOf(body)) words += countWords(contentText(message.content));
  return words;
}

/** The first tool's name, in Chat Completions ({function:{name}}) or Messages ({name}) form. */
export function firstToolName(body: Record<string, unknown>): string | null {
  const tools = body.tools;
  if (!Array.isArray(tools) || tools.length === 0) return null;
  const tool = tools[0] as Record<string, unknown> | null;
  if (!tool || typeof tool !== 'object') return null;
  const fn = tool.function as Record<string, unknown> | undefined;
  if (fn && typeof fn.name === 'string') return fn.name;
  return typeof tool.name === 'string' ? tool.name : null;
}

/**
 * `context-N`'s token count of a request (SPEC §17): characters ÷ 4, rounded up, plus 4 per message
 * (and the system prompt), as a tokenizer-free stand-in for a vendor's count.
 */
export function contextTokens(body: Record<string, unknown>): number {
  const count = (text: string) => Math.ceil(text.length / 4) + 4;
  let tokens = body.system === undefined ? 0 : count(contentText(body.system));
  for (const message of messagesOf(body)) tokens += count(contentText(message.content));
  return tokens;
}
