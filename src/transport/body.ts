import { pipeline, Readable } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ExitCode, GatechatError } from '../exit-codes.js';
import { IDLE_TIMEOUT, type ResponseBody } from './direct-request.js';
import { NetworkError, StreamInterruptedError, seconds } from './errors.js';
import { readableChunks } from './readable-chunks.js';

/** What Aborting the caller's signal turns into at any phase; recognise it with isAbortError(). */
export class RequestAbortedError extends Error {
  constructor() {
    super('the request was cancelled');
    this.name = 'AbortError';
  }
}

export function isAbortError(error: unknown): boolean {
  if (error instanceof RequestAbortedError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR';
}

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  // undici wraps system errors (ECONNREFUSED …) in `cause`, sometimes twice.
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Streaming decompression. SYNC_FLUSH on every write and at the end, so SSE events come out as
 * soon as their bytes arrive and a stream cut mid-member reads as a plain EOF (the stream decoder
 * then says "interrupted"), not as a zlib error.
 */
export function decompress<Body extends ResponseBody>(raw: Body, encoding: string | undefined): Body | Readable {
  const name = (encoding ?? '').trim().toLowerCase();
  let inflater: Readable & NodeJS.WritableStream;
  switch (name) {
    case '':
    case 'identity':
      return raw;
    case 'gzip':
    case 'x-gzip':
      inflater = createGunzip({ flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH });
      break;
    case 'deflate':
      inflater = createInflate({ flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH });
      break;
    case 'br':
      inflater = createBrotliDecompress({
        flush: constants.BROTLI_OPERATION_FLUSH,
        finishFlush: constants.BROTLI_OPERATION_FLUSH,
      });
      break;
    default:
      throw new GatechatError(`the gateway answered with an unsupported content-encoding: ${name}`, ExitCode.server);
  }
  // pipeline() forwards a socket error from `raw` into the inflater, so the reader sees it. undici's
  // dispatched body is an async iterable; as a Readable its errors reach the pipeline the same way.
  const source = raw instanceof Readable ? raw : Readable.from(raw, { objectMode: false });
  return pipeline(source, inflater, () => {});
}

export interface BodyContext {
  idleMs: number;
  signal?: AbortSignal;
  /** Runs exactly once when the body is finished, failed or abandoned: frees the connection. */
  onDone: () => void;
}

/** Maps what can go wrong while reading an answer's body to the SPEC §4 classes. */
export function bodyError(error: unknown, ctx: BodyContext): Error {
  if (ctx.signal?.aborted || isAbortError(error)) return new RequestAbortedError();
  if (error instanceof GatechatError) return error;
  const code = errorCode(error);
  if (code === 'UND_ERR_BODY_TIMEOUT' || code === IDLE_TIMEOUT) {
    return new NetworkError('idle', `idle: no data from the gateway for ${seconds(ctx.idleMs)} (--timeout)`, {
      retryable: false,
      cause: error,
    });
  }
  if (code !== undefined && /^Z_|^ERR_BROTLI|^ERR__ZLIB/.test(code)) {
    return new GatechatError('the gateway sent a corrupt compressed body', ExitCode.server);
  }
  // Reset, "other side closed", content-length mismatch: the answer is cut short.
  return new StreamInterruptedError();
}

/**
 * The answer's bytes, decompressed. The idle timeout between chunks is the client's (undici's bodyTimeout,
 * set on the dispatcher; a socket time-out for node:http), so keep-alive comments count as activity.
 * Leaving early (return(), as `break` in for-await does) destroys the body, which aborts the request.
 */
export function bodyChunks(raw: ResponseBody, encoding: string | undefined, ctx: BodyContext): BodyChunks {
  return new BodyChunks(raw, encoding, ctx);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * bodyChunks()'s iterator. A class rather than an async generator around a for-await: a generator
 * step per chunk (its own promises, request and result objects) was a visible share of a batch's
 * allocations. Like the generator it replaces, it starts reading (and decompressing) at the first
 * next(), maps a failure to the SPEC §4 classes, and frees everything once: at the end, on a failure,
 * or on return() after the first next().
 */
export class BodyChunks implements AsyncIterableIterator<Uint8Array> {
  #source: ResponseBody | undefined;
  #chunks: AsyncIterator<Buffer> | undefined;
  #started = false;
  #finished = false;

  constructor(
    private readonly raw: ResponseBody,
    private readonly encoding: string | undefined,
    private readonly ctx: BodyContext,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The answer arrived whole and was read (known for an undecompressed undici body only). */
  get drained(): boolean {
    return this.#finished || (this.#source === this.raw && this.raw.drained === true);
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#finished) return Promise.resolve(DONE);
    if (!this.#started) {
      this.#started = true;
      try {
        this.#source = decompress(this.raw, this.encoding);
        // A Node stream (node:http's response, a decompressor) through its events: Node's async iterator
        // over a Readable is compiled on every run (readable-chunks.ts); undici's body has its own.
        this.#chunks = this.#source instanceof Readable ? (readableChunks(this.#source) as AsyncIterator<Buffer>) : this.#source[Symbol.asyncIterator]();
      } catch (error) {
        this.#finish();
        return Promise.reject(bodyError(error, this.ctx));
      }
    }
    return this.#chunks!.next().then(this.#onStep, this.#onError);
  }

  readonly #onStep = (step: IteratorResult<Buffer>): IteratorResult<Uint8Array> => {
    if (!step.done) return step;
    this.#finish();
    return DONE;
  };

  readonly #onError = (error: unknown): never => {
    this.#finish();
    throw bodyError(error, this.ctx);
  };

  /** Before the first next() this does nothing, as an async generator's return() does not run its body. */
  return(_value?: unknown): Promise<IteratorResult<Uint8Array>> {
    if (!this.#started || this.#finished) {
      this.#finished = true;
      return Promise.resolve(DONE);
    }
    // Not an async function: closing a body read to its end (a batch's every answer) waits for nothing.
    if (this.drained) {
      this.#finish();
      return Promise.resolve(DONE);
    }
    let closing: unknown;
    try {
      closing = this.#chunks?.return?.();
    } catch (error) {
      this.#finish();
      return Promise.reject(error as Error);
    }
    if (!(closing instanceof Promise)) {
      this.#finish();
      return Promise.resolve(DONE);
    }
    return closing.then(
      () => {
        this.#finish();
        return DONE;
      },
      (error: unknown) => {
        this.#finish();
        throw error;
      },
    );
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#source?.destroy();
    this.raw.destroy();
    this.ctx.onDone();
  }
}

/** Whole body as text, refusing more than `limit` bytes rather than exhausting memory. */
export async function readText(chunks: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > limit) {
      throw new GatechatError(`the gateway's answer is larger than ${Math.round(limit / 1024 / 1024)} MiB; refusing to read it`, ExitCode.server);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
