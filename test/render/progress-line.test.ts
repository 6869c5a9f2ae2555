// The in-place progress line both batches draw on a terminal's stderr (render/progress-line.ts).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressLine } from '../../src/render/progress-line.js';

function capture() {
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { stream, out: () => out };
}

describe('createProgressLine', () => {
  it('draws in place, puts a logged line above it, redraws when asked, and clears it for the summary', async () => {
    const err = capture();
    let n = 0;
    const line = createProgressLine(err.stream, () => `step ${++n}`, { live: true, everyMs: 60_000 });
    line.draw();
    line.log('a warning', true);
    line.log('another', false);
    expect(line.shown).toBe(false);
    line.finish('done: 2 steps');
    await new Promise((resolve) => setImmediate(resolve));
    expect(err.out()).toBe('\r\x1b[Kstep 1\r\x1b[Ka warning\n\r\x1b[Kstep 2\r\x1b[Kanother\ndone: 2 steps\n');
  });

  it('draws nothing when not live or while there is nothing to show; the summary still comes', async () => {
    const err = capture();
    const quiet = createProgressLine(err.stream, () => 'never', { live: false, everyMs: 10 });
    quiet.draw();
    quiet.log('a warning', true);
    quiet.finish('summary');
    const empty = createProgressLine(err.stream, () => null, { live: true, everyMs: 60_000 });
    empty.draw();
    empty.finish('second');
    await new Promise((resolve) => setImmediate(resolve));
    expect(err.out()).toBe('a warning\nsummary\nsecond\n');
  });
});
