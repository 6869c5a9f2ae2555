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
 * One limiter shared by every request of a batch (additive increase, multiplicative decrease, as TCP
 * does): a 429 or a Retry-After halves the number of attempts allowed in flight and holds every new
 * attempt for the wait the gateway advised; each success adds 1/limit, so a full window of successes
 * adds one, back up to the `--concurrency` ceiling.
 *
 * Only a refusal of an attempt sent at the current limit halves it again: the replies to a burst
 * that was already in flight say nothing new about the lowered limit, and would otherwise collapse
 * it to 1 at once.
 */
export class RateLimiter implements AttemptGate {
  private limit: number;
  private inFlight = 0;
  private pausedUntil = 0;
  private epoch = 0;
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
    let left = false;
    return {
      leave: (end: AttemptEnd) => {
        if (left) return;
        left = true;
        this.inFlight--;
        this.settle(end, epoch);
        this.pump();
      },
    };
  }

  private settle(end: AttemptEnd, epoch: number): void {
    switch (end.kind) {
      case 'ok':
        this.limit = Math.min(this.ceiling, this.limit + 1 / this.limit);
        return;
      case 'failed':
        return;
      case 'rate_limited': {
        this.rateLimited++;
        if (epoch === this.epoch) {
          this.limit = Math.max(1, this.limit / 2);
          this.epoch++;
        }
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
