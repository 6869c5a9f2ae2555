/**
 * The terminal the chat's Ink instance draws on, through Ink's own `stdout` option (no fork): a view
 * of the real stdout that
 * - remembers the live frame Ink last wrote (terminal-frame.ts), so that on a narrower window the frame
 *   the terminal has reflowed is erased whole before Ink redraws (Ink erases one row per line it wrote);
 * - reports no height to Ink: Ink clears the whole terminal, scrollback included (ESC[2J ESC[3J), and
 *   prints everything again whenever its last frame was as tall as the window. The chat keeps its live
 *   region shorter than the window itself (live-region-budget.ts), and SPEC §8 forbids the clear;
 * - carries out Ctrl-L (the frame to the top, the rest kept in the scrollback) and Ctrl-Z / fg;
 * - asks for extended key reporting (xterm modifyOtherKeys; Ink asks for kitty's protocol where the
 *   terminal has it) so Shift+Enter can be told from Enter, and bracketed paste (keys.ts decodes its
 *   markers) so newlines in a paste do not send — both before the first frame, since a paste the moment
 *   the prompt shows must already be bracketed — and restores them on the way out.
 */
import { eraseFrame, eraseReflowed, FrameTracker, frameToTop } from './terminal-frame.js';

export const MODIFY_OTHER_KEYS_ON = '\u001B[>4;1m';
/** Back to the terminal's own setting. */
export const MODIFY_OTHER_KEYS_OFF = '\u001B[>4m';
/** Bracketed paste: the terminal wraps a paste in ESC[200~ … ESC[201~. */
export const BRACKETED_PASTE_ON = '\u001B[?2004h';
/** A terminal left in bracketed-paste mode garbles the shell's next paste. */
export const BRACKETED_PASTE_OFF = '\u001B[?2004l';
const SHOW_CURSOR = '\u001B[?25h';
const HIDE_CURSOR = '\u001B[?25l';

/**
 * Ink's kitty keyboard option: pushed outright in terminals known to have the protocol (Ink's own
 * auto mode asks only kitty, WezTerm and ghostty, and waits up to 200 ms for the answer), else asked
 * for where Ink knows to ask. Terminals without it ignore the request.
 */
export function kittyKeyboardMode(env: NodeJS.ProcessEnv = process.env): 'enabled' | 'auto' {
  const term = env.TERM ?? '';
  const known = /^(?:xterm-kitty|foot|foot-extra|alacritty|xterm-ghostty)$/.test(term) || env.TERM_PROGRAM === 'iTerm.app';
  return known && !env.TMUX && !env.STY ? 'enabled' : 'auto';
}

export interface TerminalSize {
  columns: number;
  rows: number;
}

export interface ChatTerminal {
  /** What Ink writes to. */
  readonly stdout: NodeJS.WriteStream;
  size(): TerminalSize;
  /** Called on every resize, after the old frame was erased and before Ink redraws. */
  onResize(listener: (size: TerminalSize) => void): () => void;
  /** Ctrl-L */
  redraw(): void;
  /** Ctrl-Z: stops the process (the shell's job control takes over); returns after `fg`. */
  suspend(): void;
  /** The modes to leave the terminal in (also written at exit). */
  restore(): void;
  dispose(): void;
}

export function openChatTerminal(real: NodeJS.WriteStream, stdin: NodeJS.ReadStream): ChatTerminal {
  const tracker = new FrameTracker();
  const listeners = new Set<(size: TerminalSize) => void>();
  const size = (): TerminalSize => ({ columns: real.columns || 80, rows: real.rows || 24 });
  const write: NodeJS.WriteStream['write'] = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
    if (typeof chunk === 'string') tracker.observe(chunk, size().columns);
    return (real.write as (...args: unknown[]) => boolean).apply(real, [chunk, ...rest]);
  } as NodeJS.WriteStream['write'];
  const bound = new Map<PropertyKey, unknown>();
  const stdout = new Proxy(real, {
    get(target, property) {
      if (property === 'write') return write;
      if (property === 'rows') return undefined;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!bound.has(property)) bound.set(property, (value as (...args: unknown[]) => unknown).bind(target));
      return bound.get(property);
    },
  });

  // First in line, before Ink's own resize handler.
  const onResize = () => {
    const now = size();
    if (tracker.frame !== null && now.columns < tracker.columns) real.write(eraseReflowed(tracker.lines(), now.columns));
    for (const listener of listeners) listener(now);
  };
  real.prependListener('resize', onResize);
  const modesOff = () => `${MODIFY_OTHER_KEYS_OFF}${BRACKETED_PASTE_OFF}${tracker.kittyFlags ? '\u001B[<u' : ''}`;
  const modesOn = () => `${MODIFY_OTHER_KEYS_ON}${BRACKETED_PASTE_ON}${tracker.kittyFlags ? `\u001B[>${tracker.kittyFlags}u` : ''}`;
  // Before Ink's first frame (Ink pushes kitty's flags itself).
  real.write(modesOn());

  return {
    stdout,
    size,
    onResize(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    redraw() {
      real.write(frameToTop(tracker.lines(), tracker.frame ?? '', size().rows));
    },
    suspend() {
      // The shell's prompt follows the transcript, with the terminal as the shell left it.
      real.write(`${eraseFrame(tracker.lines())}${modesOff()}${SHOW_CURSOR}`);
      if (stdin.isTTY) stdin.setRawMode(false);
      // Returns once the process is continued (the stop takes the whole process, this thread included).
      process.kill(process.pid, 'SIGTSTP');
      if (stdin.isTTY) stdin.setRawMode(true);
      real.write(`${modesOn()}${HIDE_CURSOR}${tracker.frame ?? ''}`);
    },
    restore() {
      real.write(modesOff());
    },
    dispose() {
      real.off('resize', onResize);
      listeners.clear();
    },
  };
}
