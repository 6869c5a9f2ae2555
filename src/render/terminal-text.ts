/**
 * Terminal safety (SPEC §8): text from the gateway or from saved files is drawn on a terminal only
 * after this, so a model cannot move the cursor, retitle the window or write the clipboard. Pure, no
 * I/O; pipes never go through it (they keep the answer's bytes).
 */

// One escape sequence or control character, in the forms terminals act on:
// - string sequences: OSC (ESC ] / U+009D), DCS (ESC P / U+0090), SOS (ESC X / U+0098), PM (ESC ^ / U+009E),
//   APC (ESC _ / U+009F), up to BEL or ST (ESC \ / U+009C) — or to the end of the text when the
//   terminator never comes, because a terminal would swallow everything after it too;
// - CSI (ESC [ / U+009B) parameters, intermediates and a final byte;
// - any other ESC sequence (ESC intermediates* final: ESC c resets the terminal, ESC 7 saves the cursor);
// - a lone ESC, and every other C0 and C1 control and DEL, except \n and \t.
// eslint-disable-next-line no-control-regex
const CONTROL = /(?:\u001B[\]PX^_]|[\u009D\u0090\u0098\u009E\u009F])[^]*?(?:\u0007|\u001B\\|\u009C|$)|(?:\u001B\[|\u009B)[0-?]*[ -/]*(?:[@-~]|$)|\u001B[ -/]*[0-~]?|[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Keeps \n and \t; removes every other C0/C1 control and whole ESC sequences (CSI, OSC, DCS, …). */
export function sanitizeForTerminal(text: string): string {
  // Fast path: most answers have no control characters at all.
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/.test(text)) return text;
  return text.replace(CONTROL, '');
}

// The start of a sequence that may continue in the next chunk: a trailing ESC, CSI without its final
// byte, or a string sequence without its terminator.
// eslint-disable-next-line no-control-regex
const UNFINISHED = /(?:(?:\u001B[\]PX^_]|[\u009D\u0090\u0098\u009E\u009F])(?:(?!\u0007|\u001B\\|\u009C)[^])*|(?:\u001B\[|\u009B)[0-?]*[ -/]*|\u001B[ -/]*)$/;

/**
 * The same rule for text that arrives in pieces (a stream shown as it comes on a dumb terminal): a
 * sequence split across pieces is held back until it ends, so no piece leaks its tail.
 */
export class TerminalSanitizer {
  private held = '';

  /** Safe text from this piece (possibly less than it, when a sequence is still open at its end). */
  push(piece: string): string {
    const text = this.held + piece;
    // eslint-disable-next-line no-control-regex
    const open = /[\u001B\u0090-\u009F]/.test(text) ? UNFINISHED.exec(text) : null;
    // A string sequence never closed should not hold the rest of the answer hostage forever.
    if (open && text.length - open.index < 64 * 1024) {
      this.held = text.slice(open.index);
      return sanitizeForTerminal(text.slice(0, open.index));
    }
    this.held = '';
    return sanitizeForTerminal(text);
  }

  /** What is still held at the end of the stream (an unterminated sequence: dropped). */
  end(): string {
    const rest = sanitizeForTerminal(this.held);
    this.held = '';
    return rest;
  }
}
