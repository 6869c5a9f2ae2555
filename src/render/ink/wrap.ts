/**
 * Wrapping rendered text (ANSI styles inside) to the terminal's width, by the renderer rather than the
 * terminal, so every row keeps its indentation. Pure. The rules a reader relies on:
 * - break at spaces; between CJK characters too (those lines have no spaces);
 * - a word longer than the line is broken at grapheme boundaries — except a URL, which is never
 *   broken: it gets a row of its own and runs past the width (the terminal soft-wraps it, so it stays
 *   clickable and copies whole);
 * - a continuation row starts with the line's indentation (or the prefix the caller gives: a list
 *   item's text column, a quote's bar), and reopens the colours left open above it.
 */
import stringWidth from 'string-width';
import { graphemes, graphemeWidth, TAB_STOP } from './graphemes.js';
import { SgrState } from './sgr.js';

// CSI sequences (colours, the only ones our renderer writes), space runs, words, a stray ESC.
// eslint-disable-next-line no-control-regex
const TOKEN = /\u001B\[([0-?]*)[ -/]*([@-~])| +|[^ \u001B]+|\u001B/g;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-?]*[ -/]*[@-~]/g;
const URL_LIKE = /(?:^|[^\p{L}\p{N}])(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S/iu;
const PRINTABLE_ASCII = /^[\u0020-\u007E]*$/;

/** Columns the text takes on a terminal (escape codes take none; CJK and emoji take two). */
export function visibleWidth(text: string): number {
  return stringWidth(text);
}

/** Tabs as spaces to the next multiple of 4 columns (escape codes take no column). */
export function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let column = 0;
  let out = '';
  for (const [token] of line.matchAll(/\u001B\[[0-?]*[ -/]*[@-~]|\t|[^\t\u001B]+|\u001B/g)) {
    if (token === '\t') {
      const n = TAB_STOP - (column % TAB_STOP);
      out += ' '.repeat(n);
      column += n;
    } else {
      out += token;
      if (!token.startsWith('\u001B')) column += visibleWidth(token);
    }
  }
  return out;
}

interface Piece {
  text: string;
  width: number;
}

/** A word's pieces: break opportunities sit on either side of every wide (CJK) grapheme. */
function wordPieces(word: string): Piece[] {
  if (PRINTABLE_ASCII.test(word)) return [{ text: word, width: word.length }];
  const pieces: Piece[] = [];
  let narrow: Piece | null = null;
  for (const { segment } of graphemes(word)) {
    const width = graphemeWidth(segment);
    if (width >= 2) {
      if (narrow) pieces.push(narrow);
      narrow = null;
      pieces.push({ text: segment, width });
    } else if (narrow) {
      narrow.text += segment;
      narrow.width += width;
    } else {
      narrow = { text: segment, width };
    }
  }
  if (narrow) pieces.push(narrow);
  return pieces;
}

/** Splits a piece into runs of at most `first` columns, then `rest` columns (grapheme boundaries). */
function splitPiece(piece: Piece, first: number, rest: number): Piece[] {
  const out: Piece[] = [];
  let current: Piece = { text: '', width: 0 };
  let limit = Math.max(1, first);
  for (const { segment } of graphemes(piece.text)) {
    const width = graphemeWidth(segment);
    if (current.width > 0 && current.width + width > limit) {
      out.push(current);
      current = { text: '', width: 0 };
      limit = Math.max(1, rest);
    }
    current.text += segment;
    current.width += width;
  }
  if (current.width > 0 || out.length === 0) out.push(current);
  return out;
}

/**
 * Wraps one line to `width` columns. `continuation`: what continuation rows start with (default: the
 * line's leading spaces); it may hold escape codes, its visible width counts.
 */
export function wrapLine(line: string, width: number, continuation?: string): string[] {
  if (visibleWidth(line) <= width) return [line];
  let prefix = continuation ?? ' '.repeat(/^ */.exec(line.replace(ANSI, ''))![0].length);
  let prefixWidth = visibleWidth(prefix);
  // An indentation that leaves no room is dropped rather than wrapping one character per row.
  if (prefixWidth > width / 2) {
    prefix = '';
    prefixWidth = 0;
  }
  const rows: string[] = [];
  const sgr = new SgrState();
  let current = '';
  let column = 0;
  let hasWord = false;
  let space = null as Piece | null;
  // Escape codes met after a space wait for the next word: a style then starts with the word, not
  // with the space before it (an underlined space would show).
  let held = '';
  const breakRow = () => {
    rows.push(`${current}${held}${sgr.active ? '\u001B[0m' : ''}`);
    held = '';
    current = prefix + sgr.open();
    column = prefixWidth;
    hasWord = false;
    space = null;
  };
  const place = (piece: Piece, word = true) => {
    current += piece.text;
    column += piece.width;
    hasWord ||= word;
  };
  for (const match of line.matchAll(TOKEN)) {
    const token = match[0];
    if (token.startsWith('\u001B')) {
      if (space) held += token;
      else current += token;
      if (match[2] === 'm') sgr.apply(match[1]!);
    } else if (token.startsWith(' ')) {
      // Spaces before the first word are the row's indentation; between words, a break opportunity.
      if (hasWord) space = { text: (space?.text ?? '') + token, width: (space?.width ?? 0) + token.length };
      else place({ text: token, width: token.length }, false);
    } else {
      const isUrl = URL_LIKE.test(token);
      const pieces = isUrl ? [{ text: token, width: visibleWidth(token) }] : wordPieces(token);
      pieces.forEach((piece, i) => {
        const gap: Piece = i === 0 && space ? space : { text: '', width: 0 };
        if (hasWord && column + gap.width + piece.width > width) breakRow();
        else if (gap.width > 0) place(gap);
        current += held;
        held = '';
        space = null;
        if (!isUrl && column + piece.width > width) {
          // Longer than the room left: broken at grapheme boundaries, row after row.
          const parts = splitPiece(piece, width - column, width - prefixWidth);
          parts.forEach((part, j) => {
            if (j > 0) breakRow();
            place(part);
          });
        } else {
          place(piece);
        }
      });
    }
  }
  rows.push(current + held);
  return rows;
}

/** Every line of the text, tabs expanded, wrapped by wrapLine. */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(expandTabs(line), width))
    .join('\n');
}
