// LineBits (src/session/line-bits.ts): the one bit set behind a resume's complete ids, the duplicate-id
// check's own-number lines and a remote batch's written lines.
import { describe, expect, it } from 'vitest';
import { LineBits } from '../../src/session/line-bits.js';

describe('LineBits', () => {
  it('holds what was added, grows past its first KiB, and says whether each add was new', () => {
    const bits = new LineBits();
    expect(bits.add(0)).toBe(true);
    expect(bits.add(7)).toBe(true);
    expect(bits.add(7)).toBe(false);
    expect(bits.add(100_000)).toBe(true);
    for (const line of [0, 7, 100_000]) expect(bits.has(line)).toBe(true);
    for (const line of [1, 6, 8, 99_999, 100_001, 10_000_000]) expect(bits.has(line)).toBe(false);
    expect([...bits]).toEqual([0, 7, 100_000]);
  });

  it('answers false for anything that is not a whole number ≥ 0, without throwing', () => {
    const bits = new LineBits();
    bits.add(1);
    for (const line of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) expect(bits.has(line)).toBe(false);
  });
});
