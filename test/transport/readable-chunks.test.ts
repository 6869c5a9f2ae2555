// readableChunks (src/transport/readable-chunks.ts): the answers `for await` over a Readable gives,
// read with the stream's events.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { QUEUED_BYTES_BEFORE_PAUSE, readableChunks } from '../../src/transport/readable-chunks.js';

/** Once the stream's events of this turn (emitted on the tick queue) have run: no time involved. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function collect(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of readableChunks(stream)) text += String(chunk);
  return text;
}

describe('readableChunks', () => {
  it('gives the bytes written over several turns, in order, and ends with the stream', async () => {
    const stream = new PassThrough();
    const done = collect(stream);
    stream.write('one ');
    await new Promise((resolve) => setTimeout(resolve, 5));
    stream.write('two ');
    stream.end('three');
    expect(await done).toBe('one two three');
  });

  it("throws the stream's error after the bytes before it", async () => {
    const stream = new PassThrough();
    const seen: string[] = [];
    const done = (async () => {
      for await (const chunk of readableChunks(stream)) seen.push(String(chunk));
    })();
    stream.write('kept');
    await new Promise((resolve) => setTimeout(resolve, 5));
    stream.destroy(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    await expect(done).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(seen).toEqual(['kept']);
  });

  it('bytes that arrived before an error are given before it, even when the reader had not taken them yet', async () => {
    const stream = new PassThrough();
    const iterator = readableChunks(stream)[Symbol.asyncIterator]();
    stream.write('first ');
    expect(String((await iterator.next()).value)).toBe('first ');
    // The reader is busy (rendering the first chunk) while two more arrive and the connection resets.
    stream.write('second ');
    stream.write('third');
    await nextTurn();
    stream.destroy(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    await nextTurn();
    const after: string[] = [];
    await expect(
      (async () => {
        for (let step = await iterator.next(); !step.done; step = await iterator.next()) after.push(String(step.value));
      })(),
    ).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(after).toEqual(['second ', 'third']);
  });

  it('a close before the end is a premature close, as the iterator says', async () => {
    const stream = new PassThrough();
    const done = collect(stream);
    stream.write('part');
    await new Promise((resolve) => setTimeout(resolve, 5));
    stream.destroy();
    await expect(done).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('a stream ended already, or one another reader has flowing, is left to the iterator', async () => {
    const ended = Readable.from(['a', 'b']);
    await collect(ended);
    expect(await collect(ended)).toBe('');
    expect(await collect(Readable.from(['x', 'y']))).toBe('xy');
  });

  it('leaving early takes its listeners off (the caller destroys the stream)', async () => {
    const stream = new PassThrough();
    stream.write('first');
    for await (const chunk of readableChunks(stream)) {
      expect(String(chunk)).toBe('first');
      break;
    }
    expect(stream.listenerCount('data') + stream.listenerCount('readable') + stream.listenerCount('end') + stream.listenerCount('close')).toBe(0);
    stream.destroy();
  });

  it('gives each chunk as it arrived, never several joined into a new Buffer', async () => {
    const stream = new PassThrough();
    stream.write('one ');
    stream.write('two ');
    stream.end('three');
    const chunks: string[] = [];
    for await (const chunk of readableChunks(stream)) chunks.push(String(chunk));
    expect(chunks).toEqual(['one ', 'two ', 'three']);
  });

  it('keeps the stream flowing while the reader keeps up, pauses it past the queued limit, and resumes it', async () => {
    const stream = new PassThrough({ highWaterMark: 1024 * 1024 });
    const iterator = readableChunks(stream)[Symbol.asyncIterator]();
    stream.write(Buffer.alloc(1000, 'a'));
    expect((await iterator.next()).value).toHaveLength(1000);
    // Read as the node:http floor reads: 'data' events, so the stream flows.
    expect(stream.readableFlowing).toBe(true);
    // The reader stops while more than the limit arrives: the stream is paused, nothing is lost.
    const piece = Buffer.alloc(16 * 1024, 'b');
    for (let sent = 0; sent <= QUEUED_BYTES_BEFORE_PAUSE + piece.length; sent += piece.length) stream.write(piece);
    await nextTurn();
    expect(stream.readableFlowing).toBe(false);
    stream.end();
    let bytes = 0;
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) bytes += (step.value as Buffer).length;
    expect(bytes).toBeGreaterThan(QUEUED_BYTES_BEFORE_PAUSE + piece.length);
    expect(bytes % piece.length).toBe(0);
  });
});
