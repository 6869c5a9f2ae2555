// Retry policy as pure functions; the one loop that uses them lives in http.ts and runs only
// before the response headers of a usable answer (SPEC §7).

export const INITIAL_DELAY_MS = 500;
export const MAX_BACKOFF_MS = 8_000;
/** A gateway asking for a longer wait is answered with a failure, never a long silent sleep. */
export const MAX_RETRY_AFTER_MS = 60_000;

export interface RetryCandidate {
  status?: number;
  headers?: Record<string, string>;
  networkPhase?: 'connect' | 'headers';
}

function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

export function shouldRetry(candidate: RetryCandidate): boolean {
  // The gateway knows best whether the same request can succeed (openai-node honours this too).
  const explicit = header(candidate.headers, 'x-should-retry')?.trim().toLowerCase();
  if (explicit === 'true') return true;
  if (explicit === 'false') return false;
  if (candidate.networkPhase !== undefined) return true;
  const status = candidate.status;
  if (status === undefined) return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The wait the gateway asked for, in ms; null when it asked for nothing usable. */
export function requestedWaitMs(headers: Record<string, string> | undefined, now: number = Date.now()): number | null {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = header(headers, 'retry-after')?.trim();
  if (after === undefined || after === '') return null;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * `attempt` is the retry about to happen, 1-based. Honours retry-after-ms, then Retry-After
 * (seconds or HTTP date); otherwise jittered exponential backoff 0.5 s → 8 s.
 */
export function retryDelayMs(
  attempt: number,
  headers: Record<string, string> | undefined,
  random: () => number,
  now: number = Date.now(),
): { delayMs: number } | { refuse: string } {
  const wanted = requestedWaitMs(headers, now);
  if (wanted !== null) {
    if (wanted > MAX_RETRY_AFTER_MS) {
      return { refuse: `the gateway asks to wait ${Math.ceil(wanted / 1000)} s before retrying, more than the ${MAX_RETRY_AFTER_MS / 1000} s gatechat waits` };
    }
    return { delayMs: Math.round(wanted) };
  }
  const base = Math.min(INITIAL_DELAY_MS * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  // Up to 25 % less than the base, so clients that failed together do not retry together.
  return { delayMs: Math.round(base * (1 - random() * 0.25)) };
}
