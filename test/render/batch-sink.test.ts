import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { batchLine, fileSink, streamSink } from '../../src/render/batch.js';
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

describe('fileSink with gatherChars (a remote batch\'s results): lines gathered, written whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatechat-sink-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const fresh = () => join(dir, `out-${++n}.jsonl`);
  const onDisk = (path: string) => readFileSync(path, 'utf8');
  const withId = (id: string): BatchRecord => ({ kind: 'invalid', line: 1, id, message: 'not JSON' });

  it('without it each line is on disk when write() returns', () => {
    const path = fresh();
    const sink = fileSink(path, false);
    sink.write(invalid(1));
    expect(onDisk(path)).toBe(batchLine(invalid(1)));
    sink.close();
  });

  it('keeps lines until that many characters wait, then writes them at once; flush() and close() write the rest', () => {
    const path = fresh();
    const line = batchLine(invalid(1));
    const sink = fileSink(path, false, line.length * 3);
    sink.write(invalid(1));
    sink.write(invalid(2));
    expect(onDisk(path)).toBe('');
    sink.write(invalid(3));
    expect(onDisk(path)).toBe(batchLine(invalid(1)) + batchLine(invalid(2)) + batchLine(invalid(3)));
    sink.write(invalid(4));
    sink.flush!();
    expect(onDisk(path)).toBe([1, 2, 3, 4].map((i) => batchLine(invalid(i))).join(''));
    sink.write(invalid(5));
    sink.close();
    expect(onDisk(path)).toBe([1, 2, 3, 4, 5].map((i) => batchLine(invalid(i))).join(''));
    expect(() => sink.write(invalid(6))).toThrow(/closed/);
  });

  it('writes the same bytes as line by line, multi-byte text larger than its buffer included', () => {
    const records = [withId('é'.repeat(10)), withId('日本'.repeat(400)), withId('plain'), withId('🙂'.repeat(300))];
    const [byLine, gathered] = [fresh(), fresh()];
    const a = fileSink(byLine, true);
    const b = fileSink(gathered, true, 64);
    for (const record of records) {
      a.write(record);
      b.write(record);
    }
    a.close();
    b.close();
    expect(onDisk(gathered)).toBe(onDisk(byLine));
    expect(onDisk(gathered)).toBe('\n' + records.map(batchLine).join(''));
  });
});
