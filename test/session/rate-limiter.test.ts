// The batch's shared limiter (AIMD): halving on a 429 sent at the current limit, the pause the
// gateway advised, additive increase back to the ceiling, and waiters that can be aborted.
import { describe, expect, it } from 'vitest';
import { PROBE_WINDOWS, RateLimiter } from '../../src/session/rate-limiter.js';
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

  it('refusals of a burst that was in flight before the cut halve only once, and bring the limit down to those that got through', async () => {
    const limiter = new RateLimiter(16, { now: () => 0 });
    const permits = await take(limiter, 16);
    permits[0].leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(8);
    for (const permit of permits.slice(1, 12)) permit.leave({ kind: 'rate_limited', waitMs: 0 });
    // Halved once (8), not collapsed to 1; but only 4 of the 16 were taken, so 4 it is.
    expect(limiter.allowed).toBe(4);
    expect(limiter.rateLimited).toBe(12);
    // An attempt sent at the lowered limit that is refused again halves it again.
    for (const permit of permits.slice(12)) permit.leave({ kind: 'ok' });
    const [late] = await take(limiter, 1);
    late.leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(2);
  });

  it('a burst refused whole (a quota) teaches no level: half, as plain AIMD, and back there one per window', async () => {
    const limiter = new RateLimiter(16, { now: () => 0 });
    const permits = await take(limiter, 16);
    for (const permit of permits) permit.leave({ kind: 'rate_limited', waitMs: 0 });
    // The last refusals brought it to 1 (only one might have got through), the whole burst says nothing.
    expect(limiter.allowed).toBe(1);
    let successes = 0;
    while (limiter.allowed < 8) {
      (await limiter.enter()).leave({ kind: 'ok' });
      successes++;
    }
    // 1 → 8 at one per window: about 1 + 2 + … + 7 = 28 successes (slow probing would take hundreds).
    expect(successes).toBeLessThanOrEqual(40);
  });

  it('successes raise the limit one per window up to the level that got through, then slowly, never above the ceiling', async () => {
    const limiter = new RateLimiter(8, { now: () => 0 });
    const permits = await take(limiter, 8);
    for (const permit of permits.slice(0, 5)) permit.leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(3); // 3 of 8 were taken
    for (const permit of permits.slice(5)) permit.leave({ kind: 'ok' });
    // At 3 in flight one is refused: halved to 1.5 (one at a time); the other 2 were taken.
    const [refused, ...others] = await take(limiter, 3);
    refused.leave({ kind: 'rate_limited', waitMs: 0 });
    expect(limiter.allowed).toBe(1);
    for (const permit of others) permit.leave({ kind: 'ok' });
    // Back to the 2 that got through within one window…
    expect(limiter.allowed).toBe(2);
    // …then one more only after PROBE_WINDOWS windows of successes.
    let successes = 0;
    while (limiter.allowed < 3) {
      (await limiter.enter()).leave({ kind: 'ok' });
      successes++;
    }
    expect(successes).toBeGreaterThan(2 * (PROBE_WINDOWS - 1));
    for (let i = 0; i < 50_000; i++) (await limiter.enter()).leave({ kind: 'ok' });
    expect(limiter.allowed).toBe(8);
  });

  it('a refused attempt goes back to the queue without spending a retry while the limit could go lower; sent alone, it counts', async () => {
    const limiter = new RateLimiter(4, { now: () => 0 });
    const permits = await take(limiter, 4);
    expect(permits[0].leave({ kind: 'rate_limited', waitMs: 0 })).toBe(true);
    // Refused after the cut, still from the burst sent at 4: queued again too.
    expect(permits[1].leave({ kind: 'rate_limited', waitMs: 0 })).toBe(true);
    expect(permits[2].leave({ kind: 'ok' })).toBe(false);
    expect(permits[3].leave({ kind: 'failed' })).toBe(false);
    expect(limiter.allowed).toBe(2);
    const [atTwo] = await take(limiter, 1);
    expect(atTwo.leave({ kind: 'rate_limited', waitMs: 0 })).toBe(true);
    expect(limiter.allowed).toBe(1);
    const [alone] = await take(limiter, 1);
    expect(alone.leave({ kind: 'rate_limited', waitMs: 0 })).toBe(false);
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
