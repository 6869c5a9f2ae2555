import { UsageError } from '../exit-codes.js';

// Ages on the command line: `usage --since 7d` and `history rm --older-than 30d` read them the same way.

const HOUR_MS = 60 * 60 * 1000;
const UNIT_MS = { h: HOUR_MS, d: 24 * HOUR_MS, w: 7 * 24 * HOUR_MS } as const;

/** `12h`, `30d`, `2w` → milliseconds; null when `text` is not one (the caller names what it expected). */
export function ageMs(text: string): number | null {
  const m = /^(\d{1,5})([hdw])$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : null;
}

/** An age that must be one, for `option`: a usage error otherwise, and 0 (`0d`: everything) is refused too. */
export function parseAge(raw: string, option: string): number {
  const ms = ageMs(raw);
  if (ms === null || ms === 0) throw new UsageError(`${option}: expected an age such as 12h, 30d or 2w, got ${JSON.stringify(raw)}`);
  return ms;
}
