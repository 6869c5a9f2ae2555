/**
 * How many rows the input box and the streaming answer may take. The live region (answer, input box,
 * status line) must stay shorter than the window, or Ink clears the screen, scrollback included, to
 * redraw it (SPEC §8). Pure, so the arithmetic is tested without a terminal.
 */

/**
 * The input box's border (2), the margin above it (1), the status line (1), and two rows to spare:
 * the box's text shows at most the window's rows minus 6 (SPEC §8).
 */
const CHROME_ROWS = 6;

/** Rows the input box may show: all that is free, or half of it while an answer streams above. */
export function inputRowBudget(rows: number, attachmentRows: number, answering: boolean): number {
  return Math.max(1, Math.floor((rows - CHROME_ROWS - attachmentRows) / (answering ? 2 : 1)));
}

/** Lines the streaming answer may show below what was already printed: what the input box left, at least 3. */
export function answerLineBudget(rows: number, inputRows: number, attachmentRows: number): number {
  return Math.max(3, rows - inputRows - CHROME_ROWS - attachmentRows);
}
