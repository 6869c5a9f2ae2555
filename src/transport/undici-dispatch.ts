import type { Dispatcher } from 'undici';
import { RequestAbortedError } from './body.js';

// One request through undici's `dispatcher.dispatch(opts, handler)`, the layer its `request()` is built
// on. `request()` wraps every answer in a stream.Readable (undici's BodyReadable) that the caller then
// reads through an async iterator, and adds an AsyncResource and an abort listener per request: over a
// batch of thousands of small streamed answers that machinery cost more CPU than reading the bytes.
// Here the handler queues the body's Buffers itself and hands them to one async iterator, pausing the
// socket (the controller) while more than HIGH_WATER_MARK bytes wait for the reader, as the Readable did.

/** The bytes that may wait for a slow reader before the socket is paused (BodyReadable's default). */
export const HIGH_WATER_MARK = 64 * 1024;

/** What a redirect's body is read away for before the connection is given up instead (BodyReadable.dump's). */
const DISCARD_LIMIT = 128 * 1024;

export interface DispatchOptions {
  origin: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | NodeJS.ReadableStream;
  signal?: AbortSignal;
  headersTimeout?: number;
}

export interface DispatchedResponse {
  statusCode: number;
  /** Lower-case names; a repeated header as an array (undici's parseHeaders). */
  headers: Record<string, string | string[] | undefined>;
  body: DispatchedBody;
}

type Controller = Dispatcher.DispatchController;

/**
 * The answer's body: Buffers in arrival order, read once through its async iterator. An error ends it
 * at the next read (bytes still queued are dropped, as destroying a Readable drops its buffer);
 * destroy() or leaving the loop before the end aborts the request, which frees the socket.
 */
export class DispatchedBody implements AsyncIterableIterator<Buffer> {
  #queue: Buffer[] = [];
  #queued = 0;
  #ended = false;
  #error: Error | null = null;
  #closed = false;
  #waiting: { resolve: (step: IteratorResult<Buffer>) => void; reject: (error: Error) => void } | null = null;

  constructor(
    private readonly controller: Controller,
    private readonly onClosed: () => void,
  ) {}

  /** Bytes received and not read yet. */
  get buffered(): number {
    return this.#queued;
  }

  /** The whole answer arrived and was read: the next read ends, at once. */
  get drained(): boolean {
    return this.#ended && this.#queue.length === 0;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.#queue.length > 0) {
      const chunk = this.#queue.shift()!;
      this.#queued -= chunk.length;
      if (this.controller.paused && this.#queued < HIGH_WATER_MARK) this.controller.resume();
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.#error) {
      this.onClosed();
      return Promise.reject(this.#error);
    }
    if (this.#ended || this.#closed) {
      this.onClosed();
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  /** Synchronous underneath: a reader leaving after the end waits for nothing. */
  return(): Promise<IteratorResult<Buffer>> {
    this.destroy();
    return Promise.resolve({ value: undefined, done: true });
  }

  /**
   * Stops reading: before the end of the answer, that aborts the request. With an error, the reader gets
   * it at its next read (the caller's signal aborted), as from a destroyed Readable.
   */
  destroy(error?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#queue.length > 0) this.#queue = [];
    this.#queued = 0;
    if (!this.#ended && !this.#error) this.controller.abort(error ?? new RequestAbortedError());
    if (error) this.#error ??= error;
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) {
      if (error) waiting.reject(error);
      else waiting.resolve({ value: undefined, done: true });
    }
    this.onClosed();
  }

  /** Reads the rest away (a redirect's body) so the connection can be used again; a long one is cut off. */
  async discard(): Promise<void> {
    let read = 0;
    try {
      for (let step = await this.next(); !step.done; step = await this.next()) {
        read += step.value.length;
        if (read > DISCARD_LIMIT) break;
      }
    } catch {
      // Gone either way.
    }
    this.destroy();
  }

  // The handler's side.

  push(chunk: Buffer): void {
    if (this.#closed) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = null;
      waiting.resolve({ value: chunk, done: false });
      return;
    }
    this.#queue.push(chunk);
    this.#queued += chunk.length;
    if (this.#queued >= HIGH_WATER_MARK) this.controller.pause();
  }

  end(): void {
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) {
      waiting.resolve({ value: undefined, done: true });
      this.onClosed();
    }
  }

  fail(error: Error): void {
    if (this.#closed || this.#ended) return;
    this.#error = error;
    this.#queue = [];
    this.#queued = 0;
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) {
      waiting.reject(error);
      this.onClosed();
    }
  }
}

/**
 * Requests in flight per signal: one 'abort' listener for all of a signal's requests (a batch's thousands
 * share the run's signal) instead of adding and removing one per request.
 */
const inFlight = new WeakMap<AbortSignal, Set<ResponseHandler>>();

function watch(signal: AbortSignal, handler: ResponseHandler): void {
  let handlers = inFlight.get(signal);
  if (!handlers) {
    const set = new Set<ResponseHandler>();
    handlers = set;
    inFlight.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        const reason = (signal.reason as Error | undefined) ?? new RequestAbortedError();
        for (const h of [...set]) h.abort(reason);
        set.clear();
      },
      { once: true },
    );
  }
  handlers.add(handler);
}

class ResponseHandler implements Dispatcher.DispatchHandler {
  #controller: Controller | null = null;
  #body: DispatchedBody | null = null;
  #reason: Error | null = null;
  #settled = false;

  constructor(
    private readonly resolve: (response: DispatchedResponse) => void,
    private readonly reject: (error: Error) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly upload: NodeJS.ReadableStream | undefined,
  ) {
    if (signal) watch(signal, this);
  }

  /** The caller's signal aborted: before the headers the request fails with `reason`, after them the body. */
  abort(reason: Error): void {
    this.#reason = reason;
    if (this.#body) this.#body.destroy(reason);
    else this.#controller?.abort(reason);
  }

  readonly #unwatch = (): void => {
    if (this.signal) inFlight.get(this.signal)?.delete(this);
  };

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    if (this.#reason) controller.abort(this.#reason);
  }

  onResponseStart(controller: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the answer's own headers come next
    // undici's controller keeps the raw headers, Buffers that are views into the socket's read, and the
    // body holds the controller until the answer ends: a batch line's headers outlived two scavenges and
    // were promoted (20 000 lines: 3.5 → 2.2 KiB promoted per line, 24 → 15 mark-compacts). Nothing reads
    // them after this (no undici interceptor runs inside our handler).
    (controller as { rawHeaders?: unknown }).rawHeaders = null;
    this.#settled = true;
    const body = new DispatchedBody(controller, this.#unwatch);
    this.#body = body;
    this.resolve({ statusCode, headers, body });
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    this.#body?.push(chunk);
  }

  onResponseEnd(): void {
    this.#body?.end();
  }

  onResponseError(_controller: Controller | undefined, error: Error): void {
    if (this.upload && typeof (this.upload as { destroy?: unknown }).destroy === 'function') {
      (this.upload as unknown as { destroy(error: Error): void }).destroy(error);
    }
    if (!this.#settled) {
      this.#settled = true;
      this.#unwatch();
      this.reject(error);
      return;
    }
    this.#body?.fail(error);
  }
}

/** Resolves at the answer's headers (after any 1xx); rejects with the error that ended it before them. */
export function dispatchRequest(dispatcher: Dispatcher, options: DispatchOptions): Promise<DispatchedResponse> {
  const { signal, body } = options;
  if (signal?.aborted) return Promise.reject((signal.reason as Error | undefined) ?? new RequestAbortedError());
  return new Promise((resolve, reject) => {
    const handler = new ResponseHandler(resolve, reject, signal, typeof body === 'object' ? body : undefined);
    // undici reads the fields it knows (origin, path, method, headers, body, headersTimeout) and ignores
    // `signal`, which the handler watches; an undefined headersTimeout leaves the dispatcher's.
    dispatcher.dispatch(options as Dispatcher.DispatchOptions, handler);
  });
}
