/**
 * Writes answers onto the socket: one write per token, backpressure, pacing, gzip, and the
 * transport faults (drop = TCP reset, stall = silence, eof = clean end without end marker).
 */
import type { ServerResponse } from 'node:http';
import type { EventEmitter } from 'node:events';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import type { Writable } from 'node:stream';
import { createGzip, gzipSync, constants as zlib, type Gzip } from 'node:zlib';
import type { CutMode } from './models.js';
import type { Frame } from './types.js';

export interface Sink {
  write(text: string): Promise<void>;
  /** Resolves once everything written so far has been handed to the socket. */
  settle(): Promise<void>;
  end(): Promise<void>;
}

class Aborted extends Error {}

/** The first of several events; unlike racing once() calls it leaves no listeners behind. */
function first(emitters: [EventEmitter, string][]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const [emitter, event] of emitters) emitter.off(event, done);
      resolve();
    };
    for (const [emitter, event] of emitters) emitter.on(event, done);
  });
}

/** Plain or gzip (flushed as it goes, so each token still leaves at once). */
export function openSink(res: ServerResponse, gzip: boolean): Sink {
  let gz: Gzip | null = null;
  if (gzip) {
    // Z_SYNC_FLUSH on every zlib write pushes each one out at once.
    gz = createGzip({ flush: zlib.Z_SYNC_FLUSH });
    gz.pipe(res);
    res.once('close', () => gz?.destroy());
  }
  const target: Writable = gz ?? res;
  // Tokens written in the same event-loop turn (only lorem-N and big-M write that fast) leave in one
  // write, and waiting for 'drain' is what makes them "as fast as the client reads". One write per
  // token made lorem-2000 take the gateway ~12 ms of syscalls (curl reads it in 3 ms now), and one
  // zlib call per token made lorem-100000+gzip ten times slower. A paced model (slow-N) writes each
  // token in its own turn, so each still leaves at once.
  let pending = '';
  let flushing: Promise<void> | null = null;
  const flush = () =>
    (flushing ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        const chunk = pending;
        pending = '';
        flushing = null;
        if (res.destroyed || target.write(chunk)) resolve();
        else void first([[target, 'drain'], [res, 'close']]).then(resolve);
      });
    }));
  const flushPending = async () => {
    if (pending !== '' || flushing) await flush();
  };
  return {
    async write(text) {
      if (res.destroyed) throw new Aborted();
      pending += text;
      const flushed = flush();
      if (pending.length >= 16_384) await flushed;
      if (res.destroyed) throw new Aborted();
    },
    async settle() {
      await flushPending();
      if (gz && !res.destroyed) await new Promise<void>((resolve) => gz.flush(zlib.Z_SYNC_FLUSH, () => resolve()));
    },
    async end() {
      await flushPending();
      if (!gz) return new Promise<void>((resolve) => res.end(resolve));
      gz.end();
      await first([[res, 'finish'], [res, 'close']]);
    },
  };
}

/** Waits until the client is gone or close() destroyed the response. */
function untilClosed(res: ServerResponse): Promise<void> {
  return res.destroyed ? Promise.resolve() : first([[res, 'close']]);
}

/** The end of a cut answer: reset the socket, go silent, or end cleanly mid-answer. */
export async function cut(res: ServerResponse, sink: Sink, mode: CutMode): Promise<void> {
  switch (mode) {
    case 'drop': {
      // Let what was written reach the client first: a reset discards data the peer has not read yet.
      await sink.settle();
      const socket = res.socket;
      for (let i = 0; i < 50 && socket && socket.writableLength > 0; i++) await sleep(20);
      await sleep(30);
      if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else res.destroy();
      return;
    }
    case 'stall':
      return untilClosed(res);
    case 'eof':
      return sink.end();
    default: {
      const never: never = mode;
      return never;
    }
  }
}

export interface StreamOptions {
  gzip: boolean;
  /** Pause before every token after the first (slow-N). */
  delayMs: number;
  /** Give the event loop a turn between tokens so each reaches the client as its own read. */
  yieldBetweenTokens: boolean;
  /** keepalive-only-N: `: keep-alive` comments every second for this long before the answer. */
  keepaliveSeconds: number;
  cut: { after: number; mode: CutMode } | null;
  headers: Record<string, string>;
  signal: AbortSignal;
}

export async function writeStream(res: ServerResponse, frames: Iterable<Frame>, options: StreamOptions): Promise<void> {
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...options.headers,
  };
  if (options.gzip) headers['content-encoding'] = 'gzip';
  res.writeHead(200, headers);
  res.flushHeaders();
  const sink = openSink(res, options.gzip);
  const { signal } = options;
  try {
    for (let s = 0; s < options.keepaliveSeconds; s++) {
      await sink.write(': keep-alive\n\n');
      await sleep(1000, undefined, { signal });
    }
    let tokens = 0;
    for (const frame of frames) {
      if (frame.token) {
        if (options.cut && tokens === options.cut.after) return await cut(res, sink, options.cut.mode);
        if (options.delayMs > 0 && tokens > 0) await sleep(options.delayMs, undefined, { signal });
        else if (options.yieldBetweenTokens) await tick(undefined, { signal });
        tokens++;
      }
      await sink.write(frame.data);
    }
    await sink.end();
  } catch (error) {
    // The client left (or close() ended us): nothing more to do for this response.
    if (!(error instanceof Aborted) && !signal.aborted) throw error;
  }
}

export interface PartialBodyOptions {
  gzip: boolean;
  mode: CutMode;
  headers: Record<string, string>;
}

/** Non-stream faults: headers, then half the JSON body (none for stall), then the cut. */
export async function writePartialBody(res: ServerResponse, body: string, options: PartialBodyOptions): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  // drop announces the full length, so the client can tell the body came up short
  if (options.mode === 'drop' && !options.gzip) headers['content-length'] = String(Buffer.byteLength(body));
  if (options.gzip) headers['content-encoding'] = 'gzip';
  res.writeHead(200, headers);
  res.flushHeaders();
  const sink = openSink(res, options.gzip);
  try {
    if (options.mode !== 'stall') await sink.write(body.slice(0, Math.floor(body.length / 2)));
    await cut(res, sink, options.mode);
  } catch (error) {
    if (!(error instanceof Aborted)) throw error;
  }
}

/** A 200 body written piece by piece with backpressure (chunked): for answers too big for one string. */
export async function writeBody(res: ServerResponse, parts: Iterable<string>, options: { gzip: boolean; headers: Record<string, string> }): Promise<void> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.gzip) headers['content-encoding'] = 'gzip';
  res.writeHead(200, headers);
  const sink = openSink(res, options.gzip);
  try {
    for (const part of parts) await sink.write(part);
    await sink.end();
  } catch (error) {
    if (!(error instanceof Aborted)) throw error;
  }
}

/** A complete response in one write (JSON answers, error envelopes, the HTML page). */
export function sendReply(res: ServerResponse, reply: { status: number; headers: Record<string, string>; body: string }, gzip = false): void {
  if (res.destroyed || res.headersSent) return;
  let body: Buffer = Buffer.from(reply.body);
  const headers: Record<string, string> = { ...reply.headers };
  if (gzip) {
    body = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = String(body.length);
  res.writeHead(reply.status, headers);
  res.end(body);
}
