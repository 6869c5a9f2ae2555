// The batch's shared limiter at its edges: bad ceilings, an already aborted signal, listeners and
// timers it leaves behind (a pause with nobody waiting must not keep the process alive), exact levels.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/session/rate-limiter.js';
import { isAbortError, type AttemptEnd, type AttemptPermit } from '../../src/transport/http.js';

async function take(limiter: RateLimiter, n: number): Promise<AttemptPermit[]> {
  const permits: AttemptPermit[] = [];
  for (let i = 0; i < n; i++) permits.push(await limiter.enter());
  return permits;
}

const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

describe('RateLimiter edges', () => {
  it('refuses a ceiling that is not a positive integer', () => {
    for (const ceiling of [0, -1, 1.5, Number.NaN]) expect(() => new RateLimiter(ceiling)).toThrow(new RangeError(`concurrency must be a positive integer, got ${ceiling}`));
    expect(new RateLimiter(1).allowed).toBe(1);
  });

  it('an already aborted signal is refused even with room to start', async () => {
    const limiter = new RateLimiter(2);
    await expect(limiter.enter(AbortSignal.abort())).rejects.toSatisfy(isAbortError);
    expect(limiter.active).toBe(0);
  });

  it('a queued waiter goes after those before it, even when a permit is free again', async () => {
    const limiter = new RateLimiter(1, { now: () => 0 });
    const [held] = await take(limiter, 1);
    const order: string[] = [];
    const first = limiter.enter().then((p) => (order.push('first'), p));
    held.leave({ kind: 'ok' });
    const second = limiter.enter().then((p) => (order.push('second'), p));
    (await first).leave({ kind: 'ok' });
    await second;
    expect(order).toEqual(['first', 'second']);
  });

  it('leaves no abort listener behind: not on a waiter that got its permit, not after an abort', async () => {
    const limiter = new RateLimiter(1, { now: () => 0 });
    const controller = new AbortController();
    for (let i = 0; i < 15; i++) {
      const [held] = await take(limiter, 1);
      const waiting = limiter.enter(controller.signal);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      held.leave({ kind: 'ok' });
      (await waiting).leave({ kind: 'ok' });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    }
    const [held] = await take(limiter, 1);
    const aborted = new AbortController();
    const waiting = limiter.enter(aborted.signal);
    aborted.abort();
    await expect(waiting).rejects.toSatisfy(isAbortError);
    expect(getEventListeners(aborted.signal, 'abort')).toHaveLength(0);
    held.leave({ kind: 'ok' });
  });

  it('a permit returned twice: the second return asks for nothing', async () => {
    const limiter = new RateLimiter(4, { now: () => 0 });
    const [a] = await take(limiter, 2);
    expect(a.leave({ kind: 'rate_limited', waitMs: 0 })).toBe(true);
    expect(a.leave({ kind: 'rate_limited', waitMs: 0 })).toBe(false);
    expect(limiter.rateLimited).toBe(1);
  });

  it('below the level that got through it climbs one per window, not at once', async () => {
    const limiter = new RateLimiter(16, { now: () => 0 });
    const permits = await take(limiter, 16);
    permits[0].leave({ kind: 'rate_limited', waitMs: 0 });
    // Halved to 8; 15 of the burst got through: the level to climb back to.
    expect(limiter.allowed).toBe(8);
    permits[1].leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(8); // 8 + 1/8
    for (const permit of permits.slice(2, 9)) permit.leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(8); // 8 + 8/8.x: not yet 9
    permits[9].leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(9);
  });

  it('when one of a burst got through, one is the level: above it the climb is slow', async () => {
    const limiter = new RateLimiter(4, { now: () => 0 });
    const permits = await take(limiter, 4);
    for (const permit of permits.slice(0, 3)) permit.leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(1);
    permits[3].leave({ kind: 'ok' });
    for (let i = 0; i < 20; i++) (await limiter.enter()).leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(1);
  });

  it('an unknown kind of end is a programming error', async () => {
    const limiter = new RateLimiter(1);
    const [permit] = await take(limiter, 1);
    expect(() => permit.leave({ kind: 'odd' } as unknown as AttemptEnd)).toThrow('unknown attempt end {"kind":"odd"}');
  });

  it('holds one timer only while someone waits out a pause', async () => {
    const limiter = new RateLimiter(2, { now: () => 0 });
    const base = timers();
    // Paused with nobody waiting: no timer (the batch may end and the process exit).
    const [a, b] = await take(limiter, 2);
    a.leave({ kind: 'rate_limited', waitMs: 60_000 });
    expect(timers()).toBe(base);
    // Waiting for a permit, not for a pause: no timer either.
    const plain = new RateLimiter(1, { now: () => 0 });
    const [held] = await take(plain, 1);
    const queued = plain.enter();
    expect(timers()).toBe(base);
    held.leave({ kind: 'ok' });
    (await queued).leave({ kind: 'ok' });
    // Waiting out the pause: one timer, however many wait.
    const controller = new AbortController();
    const w1 = limiter.enter(controller.signal);
    expect(timers()).toBe(base + 1);
    const w2 = limiter.enter(controller.signal);
    expect(timers()).toBe(base + 1);
    controller.abort();
    await Promise.allSettled([w1, w2]);
    b.leave({ kind: 'ok' });
  });
});
