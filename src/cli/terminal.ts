/** NO_COLOR (any value) and TERM=dumb turn colour off (SPEC §4). */
export function useColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return Boolean(stream.isTTY);
}

/** A terminal that takes no cursor movement (SPEC §8): plain text as it arrives, like a pipe. */
export function isDumbTerminal(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TERM === 'dumb';
}

/** What a terminal that reports no size is taken to be (SPEC §8). */
export const UNKNOWN_TERMINAL_SIZE = { columns: 80, rows: 24 };

/**
 * A pty can report 0×0 (a `script` log, a container before its first resize). Read as a size, that made
 * Ink lay text out one character per line and clear the screen and scrollback on every frame (its
 * output was "taller" than 0 rows). 0 is "unknown" here: the stream says 80×24 instead, now and after
 * each resize that still reports 0 (this listener runs before Ink's). A pipe has no size: left alone.
 */
export function withKnownSize<T extends NodeJS.WriteStream>(stream: T): T {
  if (!stream.isTTY) return stream;
  const fix = () => {
    if (!stream.columns) stream.columns = UNKNOWN_TERMINAL_SIZE.columns;
    if (!stream.rows) stream.rows = UNKNOWN_TERMINAL_SIZE.rows;
  };
  fix();
  stream.prependListener('resize', fix);
  return stream;
}
