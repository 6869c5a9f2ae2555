/**
 * One line of progress on a terminal's stderr, redrawn in place (`\r` and erase-line) on a timer, so
 * the elapsed time and rate move between updates; a line logged meanwhile goes above it. Shared by the
 * local batch's counts and the remote batch's bar.
 */
export interface ProgressLine {
  /** Draws now (when there is something to draw). */
  draw(): void;
  /** Whether the line is on screen. */
  readonly shown: boolean;
  /** Clears the line, prints `line` on its own, and redraws unless `redraw` is false. */
  log(line: string, redraw: boolean): void;
  /** Stops the timer, clears the line and prints `line`. */
  finish(line: string): void;
}

/** `text()` is the line to draw, or null while there is nothing to show; `live` false draws nothing. */
export function createProgressLine(stderr: NodeJS.WritableStream, text: () => string | null, options: { live: boolean; everyMs: number }): ProgressLine {
  let shown = false;
  const draw = (): void => {
    if (!options.live) return;
    const line = text();
    if (line === null) return;
    stderr.write(`\r\x1b[K${line}`);
    shown = true;
  };
  const timer = options.live ? setInterval(draw, options.everyMs) : null;
  timer?.unref();
  const clear = (): void => {
    if (shown) stderr.write('\r\x1b[K');
    shown = false;
  };
  return {
    draw,
    get shown() {
      return shown;
    },
    log(line, redraw) {
      clear();
      stderr.write(`${line}\n`);
      if (redraw) draw();
    },
    finish(line) {
      if (timer) clearInterval(timer);
      clear();
      stderr.write(`${line}\n`);
    },
  };
}
