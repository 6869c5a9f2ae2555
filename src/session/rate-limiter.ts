import { RequestAbortedError, type AttemptEnd, type AttemptGate, type AttemptPermit } from '../transport/http.js';
import { INITIAL_DELAY_MS, MAX_RETRY_AFTER_MS } from '../transport/retry.js';

interface Waiter {
  resolve(permit: AttemptPermit): void;
  reject(error: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export interface RateLimiterOptions {
  now?: () => number;
}

/**
 * Successes above the level known to work add one attempt per this many windows: a probe that the
 * gateway refuses costs a held slot, everyone's pause and a halving, so probing is rare.
 */
export const PROBE_WINDOWS = 32;

/**
 * One limiter shared by every request of a batch (additive increase, multiplicative decrease, as TCP
 * does): a 429, an overloaded gateway or a Retry-After halves the number of attempts allowed in flight
 * and holds every new attempt for the wait the gateway advised. The refused attempt is not the
 * line's failure while the concurrency could still go down: `leave` tells the transport to queue it
 * again without spending a retry (bounded: each such refusal halves the limit or answers a burst
 * already counted, and only successes raise it again). At one attempt in flight a refusal is real.
 *
 * Only a refusal of an attempt sent at the current limit halves it again: the replies to a burst
 * that was already in flight say nothing new about the lowered limit, and would otherwise collapse
 * it to 1 at once. They do say how many of the burst got through: the limit goes no higher than
 * that, and that is the level it climbs back to quickly (one attempt per window of successes).
 * Above it the climb is slow (one per PROBE_WINDOWS windows), back up to the `--concurrency` ceiling.
 */
export class RateLimiter implements AttemptGate {
  private limit: number;
  private inFlight = 0;
  private pausedUntil = 0;
  private epoch = 0;
  /** Our attempts in flight when the limit was last halved, and how many of them were refused since. */
  // Stryker disable next-line ObjectLiteral: never read before the first refusal sets it (every permit's epoch starts equal to this.epoch)
  private burst = { size: 0, refused: 0, halved: 0 };
  /** The level the limit climbs back to quickly; slowly above it. */
  private target: number;
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  /** Refusals seen (for the summary and tests). */
  rateLimited = 0;

  constructor(
    private readonly ceiling: number,
    options: RateLimiterOptions = {},
  ) {
    if (!Number.isInteger(ceiling) || ceiling < 1) throw new RangeError(`concurrency must be a positive integer, got ${ceiling}`);
    this.limit = ceiling;
    this.target = ceiling;
    this.now = options.now ?? Date.now;
  }

  /** Attempts allowed in flight right now. */
  get allowed(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  get active(): number {
    return this.inFlight;
  }

  /** Milliseconds until new attempts may start (0: not paused). */
  get pausedForMs(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  enter(signal?: AbortSignal): Promise<AttemptPermit> {
    if (signal?.aborted) return Promise.reject(new RequestAbortedError());
    if (this.waiters.length === 0 && this.canStart()) return Promise.resolve(this.start());
    return new Promise<AttemptPermit>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          // Stryker disable next-line ConditionalExpression: the listener is removed when the waiter is served, so it is always still queued here
          if (index >= 0) this.waiters.splice(index, 1);
          reject(new RequestAbortedError());
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.pump();
    });
  }

  private canStart(): boolean {
    return this.inFlight < this.allowed && this.now() >= this.pausedUntil;
  }

  private start(): AttemptPermit {
    this.inFlight++;
    const epoch = this.epoch;
    // Sent alone, a refused attempt could not have been spared by a lower concurrency.
    const alone = this.allowed === 1;
    let left = false;
    return {
      leave: (end: AttemptEnd) => {
        if (left) return false;
        left = true;
        this.inFlight--;
        this.settle(end, epoch);
        this.pump();
        return end.kind === 'rate_limited' && !alone;
      },
    };
  }

  private settle(end: AttemptEnd, epoch: number): void {
    switch (end.kind) {
      case 'ok':
        // One per window of successes up to the target (never past it in one step), slowly above.
        this.limit =
          this.limit < this.target
            ? Math.min(this.target, this.limit + 1 / this.limit)
            : Math.min(this.ceiling, this.limit + 1 / (this.limit * PROBE_WINDOWS));
        return;
      case 'failed':
        return;
      case 'rate_limited': {
        this.rateLimited++;
        if (epoch === this.epoch) {
          this.limit = Math.max(1, this.limit / 2);
          // Stryker disable next-line UpdateOperator: only that the epoch changes matters, not its direction
          this.epoch++;
          this.burst = { size: this.inFlight + 1, refused: 0, halved: this.limit };
        }
        this.burst.refused++;
        // Those of the burst not refused were taken at once: the level to return to quickly. None
        // taken (a quota, a pause) teaches no level: back to half quickly, as plain AIMD would.
        const through = this.burst.size - this.burst.refused;
        this.target = through >= 1 ? through : this.burst.halved;
        if (through >= 1) this.limit = Math.min(this.limit, through);
        const waitMs = Math.min(end.waitMs ?? INITIAL_DELAY_MS, MAX_RETRY_AFTER_MS);
        this.pausedUntil = Math.max(this.pausedUntil, this.now() + waitMs);
        return;
      }
      default: {
        const never: never = end;
        throw new Error(`unknown attempt end ${JSON.stringify(never)}`);
      }
    }
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.canStart()) {
      const waiter = this.waiters.shift()!;
      if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.start());
    }
    const wait = this.pausedForMs;
    if (this.waiters.length > 0 && wait > 0 && this.timer === null) {
      // Held, not dropped: the timer keeps the process alive while everyone waits out the pause.
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, wait);
    }
  }
}
