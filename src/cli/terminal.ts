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
