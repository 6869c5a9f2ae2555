import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/session/timestamp.js';

// src/session/timestamp.ts: Date#toISOString's text without its cost (the local time zone loaded at its first call).
describe('isoTimestamp', () => {
  it("is toISOString's text for every date of years 0000 to 9999", () => {
    const dates = [
      0,
      Date.UTC(2026, 10, 29, 14, 9, 14, 7),
      Date.UTC(2026, 0, 1, 0, 0, 0, 0),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 12, 30, 5, 50),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(1900, 0, 1),
      new Date('0001-02-03T04:05:06.789Z').getTime(),
      new Date('0000-01-01T00:00:00.000Z').getTime(),
      -1,
    ];
    for (let t = Date.UTC(1969, 0, 1); t < Date.UTC(2101, 0, 1); t += 86_399_937) dates.push(t);
    for (const t of dates) expect(isoTimestamp(new Date(t)), String(t)).toBe(new Date(t).toISOString());
  });

  it("takes toISOString's own forms outside those years, and its error for an invalid date", () => {
    for (const text of ['+010000-01-01T00:00:00.000Z', '-000001-12-31T23:59:59.999Z']) expect(isoTimestamp(new Date(text))).toBe(text);
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('is now by default', () => {
    const before = Date.now();
    const stamp = Date.parse(isoTimestamp());
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(Date.now());
  });
});
