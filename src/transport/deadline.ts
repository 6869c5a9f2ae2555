import { NetworkError, seconds } from './errors.js';

/**
 * SPEC §20: `--max-time` bounds a whole request — connect, retries and their waits, headers and the
 * whole body — as curl's does. `--timeout` cannot: keep-alive comments count as activity for it, so a
 * stream of nothing but comments would never end. At the deadline `onExpire` aborts the request;
 * the abort error it causes is then replaced by `error()` (exit 7).
 */
export class Deadline {
  readonly #timer: NodeJS.Timeout;
  #expired = false;

  constructor(
    readonly ms: number,
    onExpire: () => void,
  ) {
    this.#timer = setTimeout(() => {
      this.#expired = true;
      onExpire();
    }, ms);
  }

  get expired(): boolean {
    return this.#expired;
  }

  /** The error a request ended by the deadline throws instead of whatever its abort caused. */
  error(): NetworkError {
    return new NetworkError('total', `gave up after ${seconds(this.ms)} (--max-time)`, { retryable: false });
  }

  /** What to throw for `error` once the request failed: the deadline's own error when it ended it. */
  explain(error: unknown): unknown {
    return this.#expired ? this.error() : error;
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/** A deadline when `ms` is set (`--max-time`, the `max-time` key), else none. */
export function startDeadline(ms: number | undefined, onExpire: () => void): Deadline | null {
  return ms === undefined ? null : new Deadline(ms, onExpire);
}

/** Runs `work` with a signal that aborts at the deadline (and with `signal`); see Deadline. */
export async function withDeadline<T>(ms: number | undefined, signal: AbortSignal | undefined, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (ms === undefined) return work(signal);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) controller.abort();
  const deadline = new Deadline(ms, () => controller.abort());
  try {
    return await work(controller.signal);
  } catch (error) {
    // The caller's own abort (Ctrl-C) stays an abort even when the deadline passed meanwhile.
    throw signal?.aborted ? error : deadline.explain(error);
  } finally {
    deadline.clear();
    signal?.removeEventListener('abort', onAbort);
  }
}
