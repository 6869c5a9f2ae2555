import * as nodeBuffer from 'node:buffer';
import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { ExitCode, GatechatError } from '../exit-codes.js';
import type { SseMessage } from '../protocol/events.js';

/**
 * SPEC §20 "Limits": a hostile gateway can send one line that never ends (a gzip bomb inflates 1 MB
 * into 1 GiB of it) or events without end. These bound what one answer may hold in memory.
 */
export const MAX_SSE_EVENT_CHARS = 64 * 1024 * 1024;
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** Bound once: through the bundle's module namespace each call went through a getter. */
const isAscii = nodeBuffer.isAscii;

/**
 * Buffer's own latin1 decoder, which `toString('latin1')` ends in after looking the encoding up: not
 * documented, but Node's own toString calls it by this name on every line gatechat supports (20–24).
 */
type Latin1Sliceable = Buffer & { latin1Slice(start: number, end: number): string };

/** How much of a body that is not SSE is kept to say what it was. */
const NOT_SSE_PREVIEW_CHARS = 4096;

/**
 * Decompressed body bytes → SSE messages (socket → TextDecoder(stream) → eventsource-parser), within
 * the limits above, noticing a body that is not SSE at all although its content type says so.
 */
export class SseReader {
  readonly #parser: EventSourceParser;
  /** Made at the first chunk that is not ASCII (most answers in a batch have none). */
  #text: InstanceType<typeof TextDecoder> | null = null;
  /**
   * Every chunk so far was ASCII, so the TextDecoder holds no partial character (nor a BOM to drop):
   * a chunk that is ASCII too is read as latin1 (the same text, a quarter of the decoder's cost per
   * chunk in a batch). From the first other byte on, every chunk goes through the decoder.
   */
  #ascii = true;
  #bytes = 0;
  #overflow = false;
  /** An event, a comment or a known field arrived: this is an event stream, whatever else it holds. */
  #sawSse = false;
  /** The start of the body while nothing SSE arrived: what a non-SSE body said. */
  #head = '';

  constructor(onMessage: (message: SseMessage) => void) {
    this.#parser = createParser({
      maxBufferSize: MAX_SSE_EVENT_CHARS,
      onEvent: (message) => {
        this.#sawSse = true;
        // The parser's own object: a copy per event was a visible allocation over a batch.
        onMessage(message);
      },
      // Keep-alive: the idle timer is per received chunk, so it already counted as activity.
      onComment: () => {
        this.#sawSse = true;
      },
      onRetry: () => {
        this.#sawSse = true;
      },
      onError: (error: ParseError) => {
        if (error.type === 'max-buffer-size-exceeded') this.#overflow = true;
        // Unknown fields are ignored, as the SSE standard says; only a body of nothing else is not SSE.
      },
    });
  }

  /** Throws a GatechatError (exit 6) naming the limit when the answer goes past one. */
  feed(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    if (this.#bytes > MAX_ANSWER_BYTES) {
      throw new GatechatError(`the gateway's answer is over ${mib(MAX_ANSWER_BYTES)} (the limit for one answer); stopped reading it`, ExitCode.server);
    }
    const text = this.#decode(chunk);
    if (!this.#sawSse && this.#head.length < NOT_SSE_PREVIEW_CHARS) this.#head += text.slice(0, NOT_SSE_PREVIEW_CHARS - this.#head.length);
    this.#parser.feed(text);
    if (this.#overflow) {
      throw new GatechatError(`the gateway sent an SSE line or event over ${mib(MAX_SSE_EVENT_CHARS)} (the limit); stopped reading the answer`, ExitCode.server);
    }
  }

  #decode(chunk: Uint8Array): string {
    if (this.#ascii && isAscii(chunk)) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      return (buffer as Latin1Sliceable).latin1Slice(0, buffer.byteLength);
    }
    this.#ascii = false;
    // A decoder made after ASCII bytes must keep a byte-order mark as text, as one that saw them would:
    // only a mark at the stream's very start is dropped.
    this.#text ??= new TextDecoder('utf-8', { fatal: false, ignoreBOM: this.#bytes > chunk.byteLength });
    return this.#text.decode(chunk, { stream: true });
  }

  /** The body ended: an event without its final blank line (`data: [DONE]` then EOF) still counts. */
  end(): void {
    if (this.#text) this.#parser.feed(this.#text.decode());
    this.#parser.feed('\n\n');
  }

  /** The body's start when it held nothing of an event stream but text; null for SSE or an empty body. */
  get notSse(): string | null {
    return !this.#sawSse && this.#head.trim() !== '' ? this.#head : null;
  }
}

function mib(bytes: number): string {
  return `${bytes / 1024 / 1024} MiB`;
}
