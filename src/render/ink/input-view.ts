/**
 * Which part of a long prompt the input box shows. The box must stay shorter than the window: a
 * live region as tall as the terminal makes Ink clear the whole screen, scrollback included, on
 * every keystroke. So a tall prompt (a 60-line paste) shows the rows around the cursor and says how
 * many lines are above and below.
 */
export interface InputView {
  /** The lines shown, joined by \n. */
  text: string;
  /** The cursor as an offset into `text`. */
  cursor: number;
  hiddenAbove: number;
  hiddenBelow: number;
  /** Terminal rows the view takes, the "more lines" markers included. */
  rows: number;
}

/** Terminal rows a line of `length` characters takes at `width` columns (an empty line takes one). */
function rowsOf(length: number, width: number): number {
  return Math.max(1, Math.ceil(length / Math.max(1, width)));
}

/** The whole prompt when it fits in `maxRows`, else a window of whole lines around the cursor. */
export function inputView(value: string, cursor: number, width: number, maxRows: number): InputView {
  const lines = value.split('\n');
  const rows = lines.map((line) => rowsOf(line.length + 1, width));
  const total = rows.reduce((a, b) => a + b, 0);
  if (total <= maxRows) return { text: value, cursor, hiddenAbove: 0, hiddenBelow: 0, rows: total };

  // The line holding the cursor, then lines below and above it while they fit (one row each is kept
  // for the "more lines" markers).
  const cursorLine = value.slice(0, cursor).split('\n').length - 1;
  const budget = Math.max(1, maxRows - 2);
  let first = cursorLine;
  let last = cursorLine;
  let used = rows[cursorLine]!;
  while (true) {
    const below = last + 1 < lines.length && used + rows[last + 1]! <= budget;
    if (below) {
      last++;
      used += rows[last]!;
    }
    const above = first > 0 && used + rows[first - 1]! <= budget;
    if (above) {
      first--;
      used += rows[first]!;
    }
    if (!below && !above) break;
  }
  const start = lines.slice(0, first).reduce((n, line) => n + line.length + 1, 0);
  const text = lines.slice(first, last + 1).join('\n');
  const hiddenAbove = first;
  const hiddenBelow = lines.length - 1 - last;
  const rowsShown = used + (hiddenAbove > 0 ? 1 : 0) + (hiddenBelow > 0 ? 1 : 0);
  return { text, cursor: Math.min(Math.max(0, cursor - start), text.length), hiddenAbove, hiddenBelow, rows: rowsShown };
}
