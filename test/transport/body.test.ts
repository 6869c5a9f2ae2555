// Reading an answer's body: decompression, and what each failure becomes (SPEC §4 classes).
import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bodyChunks, bodyError, decompress, errorCode, isAbortError, readText, RequestAbortedError } from '../../src/transport/body.js';
import { NetworkError, StreamInterruptedError } from '../../src/transport/errors.js';
import { GatechatError } from '../../src/exit-codes.js';

async function text(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts).toString('utf8');
}

const ctx = (extra: Partial<Parameters<typeof bodyError>[1]> = {}) => ({ idleMs: 1500, onDone: () => {}, ...extra });

describe('isAbortError and errorCode', () => {
  it('knows an abort by class, name or code', () => {
    expect(isAbortError(new RequestAbortedError())).toBe(true);
    expect(new RequestAbortedError()).toMatchObject({ name: 'AbortError', message: 'the request was cancelled' });
    expect(isAbortError({ name: 'AbortError' })).toBe(true);
    expect(isAbortError({ code: 'UND_ERR_ABORTED' })).toBe(true);
    expect(isAbortError({ code: 'ABORT_ERR' })).toBe(true);
    expect([null, undefined, 'AbortError', new Error('x'), { code: 'ECONNRESET' }].map(isAbortError)).toEqual([false, false, false, false, false]);
  });

  it('finds the code through up to four levels of cause', () => {
    expect(errorCode({ code: 'A' })).toBe('A');
    expect(errorCode({ cause: { cause: { code: 'ECONNREFUSED' } } })).toBe('ECONNREFUSED');
    expect(errorCode({ cause: { cause: { cause: { code: 'DEEP' } } } })).toBe('DEEP');
    expect(errorCode({ cause: { cause: { cause: { cause: { code: 'TOO_DEEP' } } } } })).toBeUndefined();
    expect(errorCode({ code: 7, cause: { code: 'B' } })).toBe('B');
    expect(errorCode('ECONNRESET')).toBeUndefined();
    expect(errorCode(null)).toBeUndefined();
  });
});

describe('decompress', () => {
  it('passes identity through and undoes gzip, x-gzip, deflate and br, whatever the case and spaces', async () => {
    const raw = Readable.from([Buffer.from('plain')]);
    expect(decompress(raw, undefined)).toBe(raw);
    expect(decompress(raw, ' Identity ')).toBe(raw);
    expect(await text(decompress(Readable.from([gzipSync('zipped é')]), 'gzip'))).toBe('zipped é');
    expect(await text(decompress(Readable.from([gzipSync('x')]), ' X-GZIP'))).toBe('x');
    expect(await text(decompress(Readable.from([deflateSync('deflated')]), 'deflate'))).toBe('deflated');
    expect(await text(decompress(Readable.from([brotliCompressSync('brotli')]), 'br'))).toBe('brotli');
  });

  it('refuses an encoding it cannot undo (exit 6)', () => {
    expect(() => decompress(Readable.from([]), 'Zstd')).toThrow(new GatechatError('the gateway answered with an unsupported content-encoding: zstd', 6));
    try {
      decompress(Readable.from([]), 'zstd');
    } catch (error) {
      expect((error as GatechatError).exitCode).toBe(6);
    }
  });
});

describe('bodyError', () => {
  it('abort, our own errors, idle timeout, corrupt compression, and anything else as a cut', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(bodyError(new Error('x'), ctx({ signal: aborted.signal }))).toBeInstanceOf(RequestAbortedError);
    expect(bodyError({ name: 'AbortError' }, ctx())).toBeInstanceOf(RequestAbortedError);
    const own = new GatechatError('limit', 6);
    expect(bodyError(own, ctx({ signal: new AbortController().signal }))).toBe(own);
    const idle = bodyError({ code: 'UND_ERR_BODY_TIMEOUT' }, ctx());
    expect(idle).toBeInstanceOf(NetworkError);
    expect(idle).toMatchObject({ phase: 'idle', retryable: false, message: 'idle: no data from the gateway for 1.5 s (--timeout)' });
    for (const code of ['Z_DATA_ERROR', 'ERR_BROTLI_DECOMPRESSION_FAILED', 'ERR__ZLIB_INITIALIZE']) {
      expect(bodyError({ code }, ctx())).toMatchObject({ message: 'the gateway sent a corrupt compressed body', exitCode: 6 });
    }
    expect(bodyError({ code: 'XZ_DATA' }, ctx())).toBeInstanceOf(StreamInterruptedError);
    expect(bodyError({ code: 'ECONNRESET' }, ctx())).toBeInstanceOf(StreamInterruptedError);
    expect(bodyError(new Error('other side closed'), ctx())).toBeInstanceOf(StreamInterruptedError);
  });
});

describe('bodyChunks and readText', () => {
  it('yields the decompressed bytes and frees the connection once, also on failure', async () => {
    let done = 0;
    const chunks = bodyChunks(Readable.from([gzipSync('hello')]), 'gzip', ctx({ onDone: () => done++ }));
    expect(await readText(chunks, 100)).toBe('hello');
    expect(done).toBe(1);
    const broken = bodyChunks(Readable.from([Buffer.from('not gzip at all')]), 'gzip', ctx({ onDone: () => done++ }));
    await expect(readText(broken, 100)).rejects.toMatchObject({ message: 'the gateway sent a corrupt compressed body' });
    expect(done).toBe(2);
  });

  it('refuses a body over the limit, naming it in MiB', async () => {
    const big = async function* () {
      yield new Uint8Array(1024 * 1024);
      yield new Uint8Array(1024 * 1024);
    };
    await expect(readText(big(), 2 * 1024 * 1024)).resolves.toHaveLength(2 * 1024 * 1024);
    await expect(readText(big(), 2 * 1024 * 1024 - 1)).rejects.toMatchObject({ message: "the gateway's answer is larger than 2 MiB; refusing to read it", exitCode: 6 });
  });
});
