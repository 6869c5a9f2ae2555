// The batch's shared limiter (AIMD): halving on a 429 sent at the current limit, the pause the
// gateway advised, additive increase back to the ceiling, and waiters that can be aborted.
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/session/rate-limiter.js';
import { isAbortError, type AttemptPermit } from '../../src/transport/http.js';

async function take(limiter: RateLimiter, n: number): Promise<AttemptPermit[]> {
  const permits: AttemptPermit[] = [];
  for (let i = 0; i < n; i++) permits.push(await limiter.enter());
  return permits;
}

/** Resolves to whether `promise` settled before the microtask queue and one macrotask ran. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('RateLimiter', () => {
  it('allows up to the ceiling in flight; the next waits for a permit to be returned', async () => {
    const limiter = new RateLimiter(3);
    const permits = await take(limiter, 3);
    expect(limiter.active).toBe(3);
    const fourth = limiter.enter();
    expect(await settledSoon(fourth)).toBe(false);
    permits[0].leave({ kind: 'ok' });
    expect(await settledSoon(fourth)).toBe(true);
    expect(limiter.active).toBe(3);
  });

  it('a 429 halves the limit and pauses new attempts for the advised wait', async () => {
    let now = 1_000;
    const limiter = new RateLimiter(16, { now: () => now });
    const permits = await take(limiter, 16);
    permits[0].leave({ kind: 'rate_limited', waitMs: 300 });
    expect(limiter.allowed).toBe(8);
    expect(limiter.pausedForMs).toBe(300);
    for (const permit of permits.slice(1, 12)) permit.leave({ kind: 'ok' });
    // 4 in flight, 8 allowed, but paused: nobody starts until the wait is over.
    const next = limiter.enter();
    expect(await settledSoon(next)).toBe(false);
    now += 300;
    permits[12].leave({ kind: 'ok' }); // any event re-checks the clock
    expect(await settledSoon(next)).toBe(true);
  });

  it('refusals of a burst that was in flight before the cut halve only once', async () => {
    const limiter = new RateLimiter(16, { now: () => 0 });
    const permits = await take(limiter, 16);
    for (const permit of permits.slice(0, 12)) permit.leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(8);
    expect(limiter.rateLimited).toBe(12);
    // An attempt sent at the lowered limit that is refused again halves it again.
    for (const permit of permits.slice(12)) permit.leave({ kind: 'ok' });
    const [late] = await take(limiter, 1);
    late.leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(4);
  });

  it('successes raise the limit back by about one per window, never above the ceiling', async () => {
    const limiter = new RateLimiter(8, { now: () => 0 });
    const [first] = await take(limiter, 1);
    first.leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(4);
    for (let i = 0; i < 4; i++) (await limiter.enter()).leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(4); // 4 + 4 × 1/4.x: not quite 5 yet
    for (let i = 0; i < 2; i++) (await limiter.enter()).leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(5);
    for (let i = 0; i < 200; i++) (await limiter.enter()).leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(8);
  });

  it('never goes below one; failures that are not rate limits change nothing', async () => {
    const limiter = new RateLimiter(2, { now: () => 0 });
    for (let i = 0; i < 5; i++) (await limiter.enter()).leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(1);
    (await limiter.enter()).leave({ kind: 'failed' });
    expect(limiter.allowed).toBe(1);
  });

  it('a permit returned twice counts once', async () => {
    const limiter = new RateLimiter(2);
    const [a] = await take(limiter, 2);
    a.leave({ kind: 'ok' });
    a.leave({ kind: 'ok' });
    expect(limiter.active).toBe(1);
  });

  it('a waiter whose signal aborts leaves the queue with an abort error', async () => {
    const limiter = new RateLimiter(1);
    const [held] = await take(limiter, 1);
    const controller = new AbortController();
    const waiting = limiter.enter(controller.signal);
    const after = limiter.enter();
    controller.abort();
    await expect(waiting).rejects.toSatisfy(isAbortError);
    held.leave({ kind: 'ok' });
    expect(await settledSoon(after)).toBe(true);
    expect(limiter.active).toBe(1);
  });

  it('a real pause ends by itself (timer), without another event', async () => {
    const limiter = new RateLimiter(2);
    const [a] = await take(limiter, 1);
    a.leave({ kind: 'rate_limited', waitMs: 30 });
    const started = Date.now();
    await limiter.enter();
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});
