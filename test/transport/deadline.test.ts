// --max-time: one deadline over a whole request, whose abort becomes its own error (exit 7).
import { describe, expect, it } from 'vitest';
import { startDeadline, withDeadline } from '../../src/transport/deadline.js';
import { NetworkError } from '../../src/transport/errors.js';

function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
}

describe('Deadline', () => {
  it('none without --max-time; else it expires once, and explains a failure only after expiring', async () => {
    expect(startDeadline(undefined, () => {})).toBeNull();
    let fired = 0;
    const deadline = startDeadline(20, () => fired++)!;
    expect(deadline.expired).toBe(false);
    const before = new Error('before');
    expect(deadline.explain(before)).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(fired).toBe(1);
    expect(deadline.expired).toBe(true);
    const explained = deadline.explain(new Error('abort'));
    expect(explained).toBeInstanceOf(NetworkError);
    expect(explained).toMatchObject({ phase: 'total', retryable: false, exitCode: 7, message: 'gave up after 0 s (--max-time)' });
    expect(startDeadline(1500, () => {})!.error().message).toBe('gave up after 1.5 s (--max-time)');
  });

  it('clear() stops it firing', async () => {
    let fired = 0;
    startDeadline(10, () => fired++)!.clear();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(fired).toBe(0);
  });
});

describe('withDeadline', () => {
  it('without ms, runs the work with the caller\'s signal untouched', async () => {
    const signal = new AbortController().signal;
    expect(await withDeadline(undefined, signal, async (given) => given === signal)).toBe(true);
  });

  it('aborts the work at the deadline and throws the deadline\'s error instead', async () => {
    await expect(withDeadline(20, undefined, untilAborted)).rejects.toMatchObject({ phase: 'total', message: 'gave up after 0 s (--max-time)' });
    expect(await withDeadline(1000, undefined, async () => 'in time')).toBe('in time');
  });

  it('the caller\'s abort reaches the work and stays an abort, also when already aborted', async () => {
    const controller = new AbortController();
    const pending = withDeadline(5000, controller.signal, untilAborted);
    controller.abort();
    await expect(pending).rejects.toThrow('aborted');
    await expect(withDeadline(5000, controller.signal, async (signal) => signal?.aborted)).resolves.toBe(true);
    // An error of the work's own before the deadline passes through as it is.
    await expect(withDeadline(5000, new AbortController().signal, async () => { throw new Error('own'); })).rejects.toThrow('own');
  });
});
