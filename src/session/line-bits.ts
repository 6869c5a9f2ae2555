/**
 * A set of batch line numbers (whole numbers ≥ 0), one bit each: what a batch keeps per input line stays
 * a few KiB however long the input (SPEC §10, §13: 100 000 lines are 12 KiB here, a Set of their ids
 * several MiB). Used for the ids a resume skips, the lines whose id is their own number, and the lines a
 * remote batch has written.
 */
export class LineBits {
  private bits = new Uint8Array(1024);

  /** Adds `line` (a whole number ≥ 0); true when it was not in yet. */
  add(line: number): boolean {
    const byte = Math.floor(line / 8);
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << line % 8;
    if ((this.bits[byte]! & mask) !== 0) return false;
    this.bits[byte]! |= mask;
    return true;
  }

  /** Whether `line` was added; false for anything that is not a whole number ≥ 0. */
  has(line: number): boolean {
    if (!Number.isSafeInteger(line) || line < 0) return false;
    const byte = Math.floor(line / 8);
    return byte < this.bits.length && (this.bits[byte]! & (1 << line % 8)) !== 0;
  }

  /** The lines added, in increasing order. */
  *[Symbol.iterator](): Iterator<number> {
    for (let byte = 0; byte < this.bits.length; byte++) {
      const value = this.bits[byte]!;
      if (value === 0) continue;
      for (let bit = 0; bit < 8; bit++) if ((value & (1 << bit)) !== 0) yield byte * 8 + bit;
    }
  }
}
