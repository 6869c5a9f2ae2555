// Shared by the gateway tests: a started gateway per file, request helpers and a tiny SSE splitter
// (deliberately independent of src/protocol, so the gateway is checked against the wire itself).
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';

export type Api = 'chat' | 'messages';

export function useGateway(options: { apiKey?: string; log?: (line: string) => void } = {}): () => RunningGateway {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway({ port: 0, ...options });
  });
  beforeEach(async () => {
    // With --api-key the request log needs the key too (SPEC §20).
    const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
    await fetch(`${gateway.url}/__gatechat/requests`, { method: 'DELETE', headers });
  });
  afterAll(async () => {
    await gateway.close();
  });
  return () => gateway;
}

export interface LogRecorder {
  lines: string[];
  /** Pass as the gateway's `log` option. */
  log: (line: string) => void;
  /** Empties the list (lines of earlier tests must not satisfy this one's checks). */
  clear(): void;
  /** Resolves once `count` lines were logged since the last clear(): the gateway logs after the response ends. */
  waitFor(count: number): Promise<string[]>;
}

/** The gateway's log lines, with a wait for the event instead of a sleep that may be too short. */
export function logRecorder(): LogRecorder {
  const lines: string[] = [];
  let waiters: Array<{ count: number; resolve: (lines: string[]) => void }> = [];
  const settle = (): void => {
    const ready = waiters.filter((w) => lines.length >= w.count);
    waiters = waiters.filter((w) => lines.length < w.count);
    for (const w of ready) w.resolve([...lines]);
  };
  return {
    lines,
    log(line) {
      lines.push(line);
      settle();
    },
    clear() {
      lines.length = 0;
    },
    waitFor(count) {
      return new Promise((resolve) => {
        waiters.push({ count, resolve });
        settle();
      });
    },
  };
}

export function pathOf(api: Api): string {
  return api === 'chat' ? '/v1/chat/completions' : '/v1/messages';
}

/** A minimal valid body for the interface (Messages requires max_tokens). */
export function bodyFor(api: Api, model: string, text = 'hello there world', extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = { model, messages: [{ role: 'user', content: text }] };
  if (api === 'messages') base.max_tokens = 1024;
  return { ...base, ...extra };
}

export function post(gateway: RunningGateway, api: Api, body: unknown, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(gateway.url + pathOf(api), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: init.signal,
  });
}

export interface SseMessage {
  event: string | null;
  data: string;
}

/** Splits an SSE body on blank lines; comment lines are returned with event ':'. */
export function parseSse(text: string): SseMessage[] {
  const out: SseMessage[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) out.push({ event: ':', data: line.slice(1).trim() });
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0 || event !== null) out.push({ event, data: data.join('\n') });
  }
  return out;
}

/** Data payloads parsed as JSON ([DONE] kept as the string). */
export function payloads(text: string): any[] {
  return parseSse(text)
    .filter((m) => m.event !== ':')
    .map((m) => (m.data === '[DONE]' ? '[DONE]' : JSON.parse(m.data)));
}

/** Chat Completions: concatenated content / reasoning of a streamed body. */
export function chatText(chunks: any[], field: 'content' | 'reasoning_content' = 'content'): string {
  return chunks
    .filter((c) => c !== '[DONE]')
    .flatMap((c) => c.choices ?? [])
    .map((choice: any) => choice.delta?.[field] ?? '')
    .join('');
}

/** Messages: concatenated text_delta / thinking_delta of a streamed body. */
export function messagesText(events: any[], kind: 'text_delta' | 'thinking_delta' = 'text_delta'): string {
  return events
    .filter((e) => e.type === 'content_block_delta' && e.delta.type === kind)
    .map((e) => (kind === 'text_delta' ? e.delta.text : e.delta.thinking))
    .join('');
}

/**
 * Reads a body chunk by chunk until it ends or fails; returns what arrived and how it ended.
 * `onRead` sees the text so far after each read (to wait for a point in the stream).
 */
export async function readAll(response: Response, onRead?: (textSoFar: string) => void): Promise<{ text: string; reads: number; error: Error | null }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let reads = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads++;
      text += decoder.decode(value, { stream: true });
      onRead?.(text);
    }
    return { text: text + decoder.decode(), reads, error: null };
  } catch (error) {
    return { text, reads, error: error as Error };
  }
}

export const LOREM_START = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor';

/** Response.json() is typed unknown; the tests inspect whatever came back. */
export const asAny = (value: unknown): any => value;
