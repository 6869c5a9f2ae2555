// SseReader (SPEC §20 limits, §5.4): bytes → SSE messages within the limits, and a body that holds no
// event stream at all named as such. Real bytes through the real parser; the e2e tests run the binary.
import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES, MAX_SSE_EVENT_CHARS, SseReader } from '../../src/client/sse-reader.js';
import type { SseMessage } from '../../src/protocol/events.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function read(chunks: string[]): { messages: SseMessage[]; reader: SseReader } {
  const messages: SseMessage[] = [];
  const reader = new SseReader((message) => messages.push(message));
  for (const chunk of chunks) reader.feed(bytes(chunk));
  reader.end();
  return { messages, reader };
}

describe('SseReader', () => {
  it('delivers events split at every byte, with CR, LF or CRLF, and the last one without its blank line', () => {
    const body = bytes('data: {"a":1}\r\n\r\nevent: x\rdata: é\r\rdata: [DONE]');
    for (let cut = 1; cut < body.byteLength; cut++) {
      const messages: SseMessage[] = [];
      const reader = new SseReader((message) => messages.push(message));
      reader.feed(body.subarray(0, cut));
      reader.feed(body.subarray(cut));
      reader.end();
      expect(messages.map((m) => [m.event ?? null, m.data]), `cut at ${cut}`).toEqual([[null, '{"a":1}'], ['x', 'é'], [null, '[DONE]']]);
      expect(reader.notSse).toBeNull();
    }
  });

  // ASCII chunks skip the TextDecoder: that must never lose or move a character it holds back.
  it.each([
    ['a character split after ASCII chunks', [bytes('data: a\n\ndata: '), bytes('b'), Uint8Array.of(0xe2, 0x82), Uint8Array.of(0xac), bytes('c\n\n')], ['a', 'b€c']],
    ['a lone lead byte before an ASCII chunk', [bytes('data: x'), Uint8Array.of(0xc3), bytes('y\n\ndata: z\n\n')], ['x\ufffdy', 'z']],
    ['a byte-order mark split over chunks', [Uint8Array.of(0xef, 0xbb), Uint8Array.of(0xbf, 0x64), bytes('ata: q\n\n')], ['q']],
    // Only a BOM at the very start of the stream is dropped; one after ASCII chunks is text.
    ['a byte-order mark after ASCII chunks', [bytes('data: a'), Uint8Array.of(0xef, 0xbb, 0xbf, 0x62), bytes('\n\n')], ['a\ufeffb']],
    ['Buffers that are views into a larger one', [Buffer.from('xxdata: v\n\nxx').subarray(2, 11), Buffer.from('data: w\n\n')], ['v', 'w']],
  ])('decodes %s as the TextDecoder does', (_name, chunks, data) => {
    const messages: SseMessage[] = [];
    const reader = new SseReader((message) => messages.push(message));
    for (const chunk of chunks) reader.feed(chunk);
    reader.end();
    expect(messages.map((m) => m.data)).toEqual(data);
  });

  it.each([
    ['a plain-text page', 'Service unavailable, try later', 'Service unavailable, try later'],
    ['a JSON error', '{"error":{"message":"no"}}', '{"error":{"message":"no"}}'],
  ])('a body of %s is not SSE, and its start is kept to say so', (_name, body, head) => {
    const { messages, reader } = read([body]);
    expect(messages).toEqual([]);
    expect(reader.notSse).toBe(head);
  });

  it.each([
    ['empty', ''],
    ['blank lines', '\n\n  \n'],
    ['only keep-alive comments', ': ping\n\n: ping\n\n'],
    ['a retry field and a comment', 'retry: 1000\n: hi\n\n'],
  ])('a body of %s is SSE (an empty answer, not a foreign body)', (_name, body) => {
    expect(read([body]).reader.notSse).toBeNull();
  });

  it('stops a line that never ends at 64 MiB, however it is chunked', () => {
    const reader = new SseReader(() => undefined);
    reader.feed(bytes('data: "'));
    const block = bytes('a'.repeat(1024 * 1024));
    let fed = 0;
    const feedAll = () => {
      for (; fed < 80; fed++) reader.feed(block);
    };
    expect(feedAll).toThrow(/SSE line or event over 64 MiB \(the limit\)/);
    expect(fed * 1024 * 1024).toBeLessThanOrEqual(MAX_SSE_EVENT_CHARS);
  });

  it('stops one event of many data lines at 64 MiB', () => {
    const reader = new SseReader(() => undefined);
    const line = bytes(`data: ${'b'.repeat(1024 * 1024)}\n`);
    expect(() => {
      for (let i = 0; i < 80; i++) reader.feed(line);
    }).toThrow(/over 64 MiB/);
  });

  it('stops an answer of many small events at 256 MiB, with every event before it delivered', () => {
    let count = 0;
    const reader = new SseReader(() => count++);
    const event = bytes(`data: ${'c'.repeat(1024 * 1024 - 8)}\n\n`);
    expect(event.byteLength).toBe(1024 * 1024);
    let fed = 0;
    expect(() => {
      for (; fed < 300; fed++) reader.feed(event);
    }).toThrow(/answer is over 256 MiB \(the limit for one answer\)/);
    expect(fed).toBe(MAX_ANSWER_BYTES / (1024 * 1024));
    expect(count).toBe(fed);
  });
});
