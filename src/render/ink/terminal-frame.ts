/**
 * The live frame Ink last drew, read from what it writes, and the escape codes that erase or move it.
 * Pure (ink-terminal.ts does the writing). Ink's log-update draws a frame as its text ending in a
 * newline, and erases one with `eraseLines(n)` (n × ESC[2K, with ESC[1A between, then ESC[G),
 * n counting the frame's lines plus the empty one after its last newline.
 */
import stringWidth from 'string-width';

const CSI = '\u001B[';
// eslint-disable-next-line no-control-regex
const ERASE_LINES = /^(?:\u001B\[2K\u001B\[1A)*\u001B\[2K\u001B\[G/;
// One escape sequence at the start of the text (CSI, OSC, DCS or a two-character one).
// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)|P[^\u001B]*\u001B\\|[@-Z\\-_]|.)/y;

/** Whether a write holds anything but escape sequences (it stops at the first such character). */
function hasText(chunk: string): boolean {
  let i = 0;
  while (i < chunk.length) {
    if (chunk[i] !== '\u001B') return true;
    ESCAPE.lastIndex = i;
    if (!ESCAPE.exec(chunk)) return true;
    i = ESCAPE.lastIndex;
  }
  return false;
}

/** Ink's kitty keyboard protocol push (ESC[>flags u): written when it turned the protocol on. */
// eslint-disable-next-line no-control-regex
const KITTY_PUSH = /\u001B\[>(\d+)u/;

export class FrameTracker {
  /** The frame on screen as written (null when none is), and the width it was drawn at. */
  frame: string | null = null;
  columns = 0;
  /** The kitty flags Ink pushed, to pop and push again around Ctrl-Z. */
  kittyFlags: string | null = null;

  /** Every chunk Ink writes: an erase forgets the frame; any text is the newest frame. */
  observe(chunk: string, columns: number): void {
    // Ink writes these on their own, never inside a frame.
    if (chunk.length < 16) {
      const kitty = KITTY_PUSH.exec(chunk);
      if (kitty) this.kittyFlags = kitty[1]!;
      if (chunk.includes(`${CSI}<u`)) this.kittyFlags = null;
    }
    let rest = chunk;
    const erase = ERASE_LINES.exec(rest);
    if (erase) {
      this.frame = null;
      rest = rest.slice(erase[0].length);
    }
    // Static output is followed, in the same render, by the frame: the last text written is the frame.
    if (hasText(rest)) {
      this.frame = rest;
      this.columns = columns;
    }
  }

  /** The frame's lines (the empty one after its final newline not counted). */
  lines(): string[] {
    if (this.frame === null) return [];
    const lines = this.frame.split('\n');
    if (this.frame.endsWith('\n')) lines.pop();
    return lines;
  }
}

/** Rows a line of `width` columns takes at `columns` (an empty line takes one). */
const rowsAt = (width: number, columns: number) => Math.max(1, Math.ceil(width / Math.max(1, columns)));

const up = (n: number) => (n > 0 ? `${CSI}${n}A` : '');
const down = (n: number) => (n > 0 ? `${CSI}${n}B` : '');

/**
 * Before Ink erases its frame on a narrower window: the terminal has reflowed each line of it onto
 * several rows, and Ink would erase only as many rows as it wrote lines, leaving the top of the box
 * on screen. Erase the whole reflowed frame, then stand where Ink expects its frame to end, so its
 * own erase (now of blank rows) and redraw land on the frame's first row.
 */
export function eraseReflowed(lines: readonly string[], columns: number): string {
  if (lines.length === 0) return '';
  const rows = lines.reduce((sum, line) => sum + rowsAt(stringWidth(line), columns), 0);
  return `${up(rows)}${CSI}J${down(lines.length)}`;
}

/** Erases the frame in place (the cursor then stands on its first row). */
export function eraseFrame(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${up(lines.length)}${CSI}J`;
}

/**
 * Ctrl-L: the frame moves to the top of the screen; everything above it goes up into the scrollback
 * (newlines scroll it there), nothing is erased from the terminal's memory.
 */
export function frameToTop(lines: readonly string[], frame: string, rows: number): string {
  return `${eraseFrame(lines)}${'\n'.repeat(Math.max(0, rows - 1))}${CSI}H${frame}`;
}
