/**
 * The input box's layout, pure: the draft wrapped to rows of the box's width at grapheme boundaries
 * (a wide character never straddles two rows; a tab reaches the next multiple of 4; a paste chip is
 * its label), the cursor's row and column, and the window of rows shown. The box is never taller than
 * its budget (a live region as tall as the terminal makes Ink clear the screen, scrollback included):
 * a tall draft shows the rows around the cursor and says how many are hidden above and below.
 * InputBox.tsx only draws what this returns.
 */
import { graphemes, graphemeWidth } from './graphemes.js';
import { chipIndex } from './paste-chips.js';

/** One row of the draft: [start, end) offsets into it (a row never holds a line break). */
export interface Row {
  start: number;
  end: number;
}

/** A chip's label (paste n), as wide as it is shown. */
export type ChipLabel = (n: number) => string;

interface Cell {
  segment: string;
  index: number;
  column: number;
  width: number;
  chip: number | null;
}

const PLAIN_ASCII = /^[\u0020-\u007E]*$/;

/** The cells of value[start, end) laid from column 0 (tabs and chips measured). */
function cells(value: string, start: number, end: number, label: ChipLabel, width: number): Cell[] {
  const out: Cell[] = [];
  let column = 0;
  for (const { segment, index } of graphemes(value.slice(start, end))) {
    const chip = chipIndex(segment);
    const w = chip === null ? graphemeWidth(segment, column) : Math.min(width, graphemeWidth(label(chip)));
    out.push({ segment, index: start + index, column, width: w, chip });
    column += w;
  }
  return out;
}

/**
 * Rows of the draft at `width` columns. A line whose last row is full gets an empty row after it
 * when the cursor is at its end: the cursor has to be drawn somewhere inside the box.
 */
export function layoutRows(value: string, width: number, label: ChipLabel, cursor = -1): Row[] {
  const w = Math.max(1, width);
  const rows: Row[] = [];
  let lineStart = 0;
  for (const line of value.split('\n')) {
    const lineEnd = lineStart + line.length;
    if (PLAIN_ASCII.test(line)) {
      for (let s = lineStart; s < lineEnd || s === lineStart; s += w) rows.push({ start: s, end: Math.min(s + w, lineEnd) });
      if (line.length > 0 && line.length % w === 0 && cursor === lineEnd) rows.push({ start: lineEnd, end: lineEnd });
    } else {
      let row: Row = { start: lineStart, end: lineStart };
      let column = 0;
      for (const cell of cells(value, lineStart, lineEnd, label, w)) {
        // Re-measured from the row's start: a tab's width depends on where it begins.
        const cellWidth = cell.segment === '\t' ? graphemeWidth('\t', column) : cell.width;
        if (column > 0 && column + cellWidth > w) {
          rows.push(row);
          row = { start: cell.index, end: cell.index };
          column = 0;
        }
        column += cell.segment === '\t' ? graphemeWidth('\t', column) : cell.width;
        row.end = cell.index + cell.segment.length;
      }
      rows.push(row);
      if (column >= w && cursor === lineEnd) rows.push({ start: lineEnd, end: lineEnd });
    }
    lineStart = lineEnd + 1;
  }
  return rows;
}

/**
 * The row the cursor is drawn on: the last one starting at or before it (at a wrap point that is the
 * row the next character begins; at a line's end, that line's last row).
 */
export function cursorRow(rows: readonly Row[], cursor: number): number {
  let low = 0;
  let high = rows.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (rows[mid]!.start <= cursor) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Columns from the start of `row` to `offset`. */
export function columnIn(value: string, row: Row, offset: number, label: ChipLabel, width: number): number {
  let column = 0;
  for (const cell of cells(value, row.start, Math.min(offset, row.end), label, width)) column += cell.width;
  return column;
}

/** The offset in `row` nearest `column` without passing it (Up/Down keep the cursor's column). */
export function offsetAtColumn(value: string, row: Row, column: number, label: ChipLabel, width: number): number {
  for (const cell of cells(value, row.start, row.end, label, width)) {
    if (cell.column + cell.width > column) return cell.index;
  }
  return row.end;
}

/** A run of the drawn row: plain text, a chip, or the cursor on either. */
export interface Span {
  kind: 'text' | 'chip';
  text: string;
  cursor: boolean;
}

export interface InputView {
  /** The rows shown, each as spans; the cursor is on exactly one of them. */
  rows: Span[][];
  hiddenAbove: number;
  hiddenBelow: number;
  /** Terminal rows the view takes, the "more lines" markers included. */
  height: number;
}

function drawRow(value: string, row: Row, cursor: number, label: ChipLabel, width: number): Span[] {
  const spans: Span[] = [];
  const push = (kind: Span['kind'], text: string, isCursor: boolean) => {
    const last = spans[spans.length - 1];
    if (last && last.kind === kind && !last.cursor && !isCursor && kind === 'text') last.text += text;
    else spans.push({ kind, text, cursor: isCursor });
  };
  for (const cell of cells(value, row.start, row.end, label, width)) {
    const isCursor = cell.index === cursor;
    if (cell.chip !== null) {
      // A label wider than the box is cut (chip labels are ASCII apart from the dots).
      const text = label(cell.chip);
      push('chip', cell.width < graphemeWidth(text) ? `${text.slice(0, Math.max(0, cell.width - 2))}…]` : text, isCursor);
    } else {
      push('text', cell.segment === '\t' ? ' '.repeat(cell.width) : cell.segment, isCursor);
    }
  }
  if (cursor === row.end && !spans.some((s) => s.cursor)) push('text', ' ', true);
  return spans;
}

/** The rows shown for a draft with the cursor at `cursor`, at most `maxRows` tall (markers included). */
export function inputView(value: string, cursor: number, width: number, maxRows: number, label: ChipLabel): InputView {
  const w = Math.max(1, width);
  const rows = layoutRows(value, w, label, cursor);
  const at = cursorRow(rows, cursor);
  const total = rows.length;
  const budget = Math.max(1, maxRows);
  let first = 0;
  let count = total;
  if (total > budget) {
    const withOneMarker = Math.max(1, budget - 1);
    if (at < withOneMarker) {
      count = withOneMarker;
    } else if (at >= total - withOneMarker) {
      count = withOneMarker;
      first = total - count;
    } else {
      count = Math.max(1, budget - 2);
      first = at - count + 1;
    }
  }
  const shown = rows.slice(first, first + count).map((row, i) => drawRow(value, row, first + i === at ? cursor : -1, label, w));
  const hiddenAbove = first;
  const hiddenBelow = total - first - count;
  return { rows: shown, hiddenAbove, hiddenBelow, height: count + (hiddenAbove > 0 ? 1 : 0) + (hiddenBelow > 0 ? 1 : 0) };
}
