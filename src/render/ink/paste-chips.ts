/**
 * A big paste is one chip in the input box (`[pasted #1 · 9.8 KB · 1 line]`), as in Claude Code and
 * gemini-cli: the box stays small, the cursor moves over and deletes it as one character, and the
 * message carries the whole text. Pure. In the draft a chip is one code point of Supplementary
 * Private Use Area-A (a single grapheme, so the editor needs no special case); text typed or pasted
 * never contains those code points (they are dropped from input), so a chip cannot be forged.
 */

const CHIP_BASE = 0xf0000;
const CHIP_LAST = 0xffffd;
// eslint-disable-next-line no-misleading-character-class
const CHIP_CHARS = /[\u{F0000}-\u{FFFFD}]/gu;

/** More than this many lines or characters makes a paste a chip (SPEC §8). */
export const CHIP_MIN_LINES = 11;
export const CHIP_MIN_CHARS = 1001;

export function isBigPaste(text: string): boolean {
  if (text.length >= CHIP_MIN_CHARS && [...text].length >= CHIP_MIN_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && lines < CHIP_MIN_LINES; i = text.indexOf('\n', i + 1)) lines++;
  return lines >= CHIP_MIN_LINES;
}

/** The draft's character for paste number `n` (0-based index into the pastes). */
export function chipChar(n: number): string {
  return String.fromCodePoint(CHIP_BASE + Math.min(n, CHIP_LAST - CHIP_BASE));
}

/** The paste index a grapheme stands for, or null for ordinary text. */
export function chipIndex(grapheme: string): number | null {
  const code = grapheme.codePointAt(0)!;
  return code >= CHIP_BASE && code <= CHIP_LAST && grapheme.length === 2 ? code - CHIP_BASE : null;
}

/** Typed or pasted text cannot carry chip characters. */
export function withoutChipChars(text: string): string {
  return text.replace(CHIP_CHARS, '');
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `[pasted #1 · 9.8 KB · 1 line]` */
export function chipLabel(n: number, text: string): string {
  const lines = text.split('\n').length;
  return `[pasted #${n + 1} · ${size(Buffer.byteLength(text))} · ${lines} line${lines === 1 ? '' : 's'}]`;
}

/** The draft with each chip replaced by its whole text: what is sent, recalled and edited. */
export function expandChips(value: string, pastes: readonly string[]): string {
  return value.replace(CHIP_CHARS, (c) => pastes[c.codePointAt(0)! - CHIP_BASE] ?? '');
}

/** The draft with each chip as its label: how the prompt is echoed in the transcript. */
export function labelChips(value: string, pastes: readonly string[]): string {
  return value.replace(CHIP_CHARS, (c) => {
    const n = c.codePointAt(0)! - CHIP_BASE;
    return pastes[n] === undefined ? '' : chipLabel(n, pastes[n]!);
  });
}
