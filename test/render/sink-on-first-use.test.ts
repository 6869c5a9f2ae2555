// SinkOnFirstUse (src/render/output.ts): a one-shot's stdout and stderr are built at their first use, not
// before the request (src/cli/std-streams.ts). Reading whether it is destroyed, or removing a listener,
// must not build it; a write or a listener does, once.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SinkOnFirstUse, writeWithBackpressure } from '../../src/render/output.js';

describe('SinkOnFirstUse', () => {
  it('opens its stream at the first write, once, and writes through it', async () => {
    let opened = 0;
    const stream = new PassThrough();
    const sink = new SinkOnFirstUse(() => {
      opened++;
      return stream;
    });
    const listener = () => undefined;
    sink.off('drain', listener);
    expect(sink.destroyed).toBe(false);
    expect(opened).toBe(0);
    await writeWithBackpressure(sink, 'one ');
    sink.write('two');
    expect(opened).toBe(1);
    expect(String(stream.read())).toBe('one two');
  });

  it('a listener opens it too, and once opened it reports the stream\'s own state', () => {
    const stream = new PassThrough();
    const sink = new SinkOnFirstUse(() => stream);
    let drained = false;
    sink.once('drain', () => (drained = true));
    stream.emit('drain');
    expect(drained).toBe(true);
    stream.destroy();
    expect(sink.destroyed).toBe(true);
  });
});
