import { pipeline, type Readable } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ExitCode, GatechatError } from '../exit-codes.js';
import { IDLE_TIMEOUT } from './direct-request.js';
import { NetworkError, StreamInterruptedError, seconds } from './errors.js';

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
export function decompress(raw: Readable, encoding: string | undefined): Readable {
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
  // pipeline() forwards a socket error from `raw` into the inflater, so the reader sees it.
  return pipeline(raw, inflater, () => {});
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
 * set on the dispatcher; a socket time-out for node:http), so keep-alive comments count as activity. Breaking out destroys the body,
 * which aborts the request.
 */
export async function* bodyChunks(raw: Readable, encoding: string | undefined, ctx: BodyContext): AsyncGenerator<Uint8Array, void, void> {
  let source: Readable | undefined;
  try {
    source = decompress(raw, encoding);
    for await (const chunk of source) yield chunk as Uint8Array;
  } catch (error) {
    throw bodyError(error, ctx);
  } finally {
    source?.destroy();
    raw.destroy();
    ctx.onDone();
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
