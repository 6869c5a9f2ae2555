/**
 * The editor's text model, pure: graphemes (Intl.Segmenter), the columns each takes, and word
 * boundaries like readline's. Widths come from string-width, the measure Ink lays text out with, so
 * the rows computed here are the rows Ink draws.
 */
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** A tab is drawn as spaces to the next multiple of this many columns (SPEC §8). */
export const TAB_STOP = 4;

const PRINTABLE_ASCII = /^[\u0020-\u007E]*$/;

/** Columns grapheme `g` takes when it starts at `column`: a tab reaches the next tab stop. */
export function graphemeWidth(g: string, column = 0): number {
  if (g === '\t') return TAB_STOP - (column % TAB_STOP);
  if (g.length === 1 && g >= ' ' && g <= '~') return 1;
  return stringWidth(g);
}

/** The graphemes of `text` with their UTF-16 offsets. */
export function graphemes(text: string): Array<{ segment: string; index: number }> {
  if (PRINTABLE_ASCII.test(text)) return Array.from(text, (segment, index) => ({ segment, index }));
  return Array.from(segmenter.segment(text), ({ segment, index }) => ({ segment, index }));
}

/** Columns `text` takes starting at `column` (tabs to their stops; no escape codes expected). */
export function displayWidth(text: string, column = 0): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let col = column;
  for (const { segment } of graphemes(text)) col += graphemeWidth(segment, col);
  return col - column;
}

// Between two printable ASCII characters (or after a line break) there is always a grapheme
// boundary, so segmenting can start there instead of at the start of a long text.
const isAnchorChar = (c: string | undefined) => c !== undefined && c >= ' ' && c <= '~';
const ANCHOR_SCAN = 512;

function anchorAtOrBefore(text: string, i: number): number {
  for (let p = i, n = 0; p > 0 && n < ANCHOR_SCAN; p--, n++) {
    if (text[p - 1] === '\n' || (isAnchorChar(text[p - 1]) && isAnchorChar(text[p]))) return p;
  }
  return Math.max(0, text.lastIndexOf('\n', i - 1) + 1);
}

function anchorAfter(text: string, i: number): number {
  for (let p = i + 1, n = 0; p < text.length && n < ANCHOR_SCAN; p++, n++) {
    if (text[p - 1] === '\n' || (isAnchorChar(text[p - 1]) && isAnchorChar(text[p]))) return p;
  }
  const end = text.indexOf('\n', i + 1);
  return end === -1 ? text.length : end + 1;
}

/** The grapheme boundary before `offset`: where Left and Backspace go (a ZWJ emoji is one step). */
export function previousBoundary(text: string, offset: number): number {
  if (offset <= 0) return 0;
  const start = anchorAtOrBefore(text, offset - 1);
  let last = start;
  for (const { index } of segmenter.segment(text.slice(start, offset))) last = start + index;
  return last;
}

/** The grapheme boundary after `offset`: where Right and Delete go. */
export function nextBoundary(text: string, offset: number): number {
  if (offset >= text.length) return text.length;
  const end = anchorAfter(text, offset);
  const first = segmenter.segment(text.slice(offset, end))[Symbol.iterator]().next();
  return first.done ? end : offset + first.value.segment.length;
}

/** readline's words: letters, digits and the marks on them; punctuation and emoji separate words. */
const isWordGrapheme = (g: string) => /^[\p{L}\p{N}]/u.test(g);
const isSpaceGrapheme = (g: string) => /^\s/u.test(g);

function scanBack(text: string, offset: number, skip: (g: string) => boolean): number {
  let i = offset;
  while (i > 0) {
    const before = previousBoundary(text, i);
    if (!skip(text.slice(before, i))) break;
    i = before;
  }
  return i;
}

function scanForward(text: string, offset: number, skip: (g: string) => boolean): number {
  let i = offset;
  while (i < text.length) {
    const after = nextBoundary(text, i);
    if (!skip(text.slice(i, after))) break;
    i = after;
  }
  return i;
}

/** Alt+b, Ctrl+Left, and where Alt+Backspace deletes to: the start of this or the previous word. */
export function wordStartBefore(text: string, offset: number): number {
  return scanBack(text, scanBack(text, offset, (g) => !isWordGrapheme(g)), isWordGrapheme);
}

/** Alt+f, Ctrl+Right, and where Alt+d deletes to: the end of this or the next word. */
export function wordEndAfter(text: string, offset: number): number {
  return scanForward(text, scanForward(text, offset, (g) => !isWordGrapheme(g)), isWordGrapheme);
}

/** Where Ctrl-W deletes to (readline's unix-word-rubout): back over spaces, then to the last space. */
export function spaceWordStartBefore(text: string, offset: number): number {
  return scanBack(text, scanBack(text, offset, isSpaceGrapheme), (g) => !isSpaceGrapheme(g));
}
