import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Agent } from './undici-core.js';
import { dispatchRequest } from './undici-dispatch.js';
import type { RawResponse, SendOptions } from './direct-request.js';

// undici, loaded only by requests that need it (its own chunk): a keep-alive pool shared by many requests
// (batch, a tool loop), a proxy, or a body streamed from disk. A single direct request is node:http's
// (`direct-request.ts`).

export interface UndiciTimeouts {
  connectMs: number;
  headersMs: number;
  idleMs: number;
}

export interface UndiciSendOptions extends Omit<SendOptions, 'body'> {
  body?: string | Readable;
  /** Overrides the dispatcher's (a shared pool's is the streaming one; --no-stream waits longer). */
  headersTimeout?: number;
}

export function directAgent({ connectMs, headersMs, idleMs }: UndiciTimeouts): Dispatcher {
  return new Agent({ connect: { timeout: connectMs }, headersTimeout: headersMs, bodyTimeout: idleMs });
}

export async function proxyAgent(proxy: string, { connectMs, headersMs, idleMs }: UndiciTimeouts): Promise<Dispatcher> {
  const { createProxyAgent } = await import('./undici-proxy.js');
  return createProxyAgent(proxy, { connectMs, headersMs, bodyMs: idleMs });
}

export async function sendThrough(dispatcher: Dispatcher, url: URL, { headersTimeout, ...options }: UndiciSendOptions): Promise<RawResponse> {
  const res = await dispatchRequest(dispatcher, {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: options.method,
    headers: options.headers,
    body: options.body,
    signal: options.signal,
    headersTimeout,
  });
  const { body } = res;
  return { statusCode: res.statusCode, headers: res.headers, body, discard: () => body.discard() };
}
