import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { batchLine, streamSink } from '../../src/render/batch.js';
import type { BatchRecord } from '../../src/session/batch.js';

const invalid = (line: number): BatchRecord => ({ kind: 'invalid', line, id: line, message: 'not JSON' });
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A real Writable that keeps each write() it gets; `hold` keeps the callback back (a slow reader). */
function recorder(options: { highWaterMark?: number; hold?: boolean } = {}) {
  const writes: string[] = [];
  const held: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      writes.push(String(chunk));
      if (options.hold) held.push(callback);
      else callback();
    },
  });
  return { stream, writes, release: () => held.splice(0).forEach((callback) => callback()) };
}

describe('streamSink (batch to stdout): the lines of one turn as one write', () => {
  it('writes the lines finished in one turn once, at its end, byte for byte and in order', async () => {
    const { stream, writes } = recorder();
    const sink = streamSink(stream);
    expect(sink.write(invalid(1))).toBeUndefined();
    expect(sink.write(invalid(2))).toBeUndefined();
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual([batchLine(invalid(1)) + batchLine(invalid(2))]);
    sink.write(invalid(3));
    await turn();
    expect(writes).toEqual([batchLine(invalid(1)) + batchLine(invalid(2)), batchLine(invalid(3))]);
  });

  it('close() writes what the turn has not written yet', () => {
    const { stream, writes } = recorder();
    const sink = streamSink(stream);
    sink.write(invalid(1));
    sink.close();
    expect(writes).toEqual([batchLine(invalid(1))]);
  });

  it('a reader behind holds the next lines back until it drains, and none is lost or reordered', async () => {
    const { stream, writes, release } = recorder({ highWaterMark: 1, hold: true });
    const sink = streamSink(stream);
    sink.write(invalid(1));
    await turn();
    expect(writes).toEqual([batchLine(invalid(1))]);
    const waiting = sink.write(invalid(2));
    expect(waiting).toBeInstanceOf(Promise);
    const alsoWaiting = sink.write(invalid(3));
    expect(alsoWaiting).toBeInstanceOf(Promise);
    let drained = false;
    void waiting!.then(() => (drained = true));
    await turn();
    expect(drained).toBe(false);
    expect(writes).toHaveLength(1);
    release();
    await waiting;
    await alsoWaiting;
    release();
    await turn();
    expect(writes.join('')).toBe(batchLine(invalid(1)) + batchLine(invalid(2)) + batchLine(invalid(3)));
  });
});
