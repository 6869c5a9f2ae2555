/**
 * Raw terminal input → key events. Ink's useInput reports Backspace (0x7f) and Delete (ESC[3~) as the
 * same key and drops bracketed-paste markers, so the UI decodes the raw sequences itself. Ink's input
 * parser already splits a chunk at escape sequences; each call here gets one of those pieces.
 */
export type KeyEvent =
  | { kind: 'text'; text: string }
  | { kind: 'enter' }
  /** Alt+Enter, Shift+Enter (kitty / modifyOtherKeys), Ctrl-J. */
  | { kind: 'newline' }
  | { kind: 'paste-start' }
  | { kind: 'paste-end' }
  | { kind: 'backspace' }
  | { kind: 'delete' }
  /** Alt+Backspace, Ctrl+Backspace. */
  | { kind: 'delete-word-back' }
  /** Alt+d. */
  | { kind: 'delete-word-forward' }
  | { kind: 'left' }
  | { kind: 'right' }
  | { kind: 'word-left' }
  | { kind: 'word-right' }
  | { kind: 'up' }
  | { kind: 'down' }
  | { kind: 'home' }
  | { kind: 'end' }
  | { kind: 'tab' }
  | { kind: 'escape' }
  /** Ctrl + a letter, lower case ('a' … 'z'), other than the ones with their own kind. */
  | { kind: 'ctrl'; key: string }
  | { kind: 'ignored' };

const ESC = '\u001B';

const CSI_FINAL: Record<string, KeyEvent['kind']> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
};

const CSI_TILDE: Record<string, KeyEvent['kind']> = {
  '1': 'home',
  '7': 'home',
  '4': 'end',
  '8': 'end',
  '3': 'delete',
  '200': 'paste-start',
  '201': 'paste-end',
};

/** Modifier parameter as terminals send it (1 + bitmask: 1 shift, 2 alt, 4 ctrl). */
function modifierBits(param: string | undefined): number {
  const n = Number(param ?? '1');
  return Number.isFinite(n) && n > 0 ? n - 1 : 0;
}

function key(kind: Exclude<KeyEvent['kind'], 'text' | 'ctrl'>): KeyEvent {
  return { kind } as KeyEvent;
}

function decodeCodepointKey(codepoint: number, mods: number): KeyEvent {
  const ctrl = (mods & 4) !== 0;
  const shiftOrAlt = (mods & 3) !== 0;
  if (codepoint === 13) return shiftOrAlt || ctrl ? key('newline') : key('enter');
  if (codepoint === 27) return key('escape');
  if (codepoint === 9) return key('tab');
  if (codepoint === 127 || codepoint === 8) return (mods & 2) !== 0 || ctrl ? key('delete-word-back') : key('backspace');
  if (ctrl && codepoint >= 97 && codepoint <= 122) return decodeControl(String.fromCharCode(codepoint - 96));
  // Alt+letter, reported this way by kitty's protocol: the readline word keys.
  if ((mods & 2) !== 0 && ALT_KEYS[String.fromCodePoint(codepoint)]) return key(ALT_KEYS[String.fromCodePoint(codepoint)]!);
  if (!ctrl && codepoint >= 32) return { kind: 'text', text: String.fromCodePoint(codepoint) };
  return key('ignored');
}

/** Alt + a letter, as readline binds them. */
const ALT_KEYS: Record<string, Exclude<KeyEvent['kind'], 'text' | 'ctrl'>> = { b: 'word-left', f: 'word-right', d: 'delete-word-forward' };

function decodeEscape(seq: string): KeyEvent {
  if (seq === ESC || seq === ESC + ESC) return key('escape');
  if (seq === `${ESC}\r` || seq === `${ESC}\n`) return key('newline');
  if (seq === `${ESC}\u007F` || seq === `${ESC}\b`) return key('delete-word-back');
  if (seq.length === 2 && ALT_KEYS[seq[1]!]) return key(ALT_KEYS[seq[1]!]!);
  // SS3 (application cursor mode): ESC O A
  const ss3 = /^\u001BO([A-DHF])$/.exec(seq);
  if (ss3) return key(CSI_FINAL[ss3[1]!] as Exclude<KeyEvent['kind'], 'text' | 'ctrl'>);
  // kitty / CSI u: ESC [ codepoint ; mods u
  const csiU = /^\u001B\[(\d+)(?::\d+)*(?:;(\d+)(?::\d+)?)?(?:;[\d:]+)?u$/.exec(seq);
  if (csiU) return decodeCodepointKey(Number(csiU[1]), modifierBits(csiU[2]));
  // xterm modifyOtherKeys: ESC [ 27 ; mods ; codepoint ~
  const other = /^\u001B\[27;(\d+);(\d+)~$/.exec(seq);
  if (other) return decodeCodepointKey(Number(other[2]), modifierBits(other[1]));
  const tilde = /^\u001B\[(\d+)(?:;(\d+))?~$/.exec(seq);
  if (tilde) {
    const kind = CSI_TILDE[tilde[1]!];
    return kind ? key(kind as Exclude<KeyEvent['kind'], 'text' | 'ctrl'>) : key('ignored');
  }
  const letter = /^\u001B\[(?:1;(\d+))?([A-DHF])$/.exec(seq);
  if (letter) {
    const kind = CSI_FINAL[letter[2]!]!;
    const mods = modifierBits(letter[1]);
    // Ctrl/Alt + Left/Right move by word, as in shells.
    if ((mods & 6) !== 0 && kind === 'left') return key('word-left');
    if ((mods & 6) !== 0 && kind === 'right') return key('word-right');
    return key(kind as Exclude<KeyEvent['kind'], 'text' | 'ctrl'>);
  }
  if (seq === `${ESC}[Z`) return key('ignored'); // Shift+Tab
  // Alt + another printable (ESC x): the printable character; only the keys above are bound.
  if (seq.length === 2 && seq[1]! >= ' ') return { kind: 'text', text: seq[1]! };
  return key('ignored');
}

function decodeControl(ch: string): KeyEvent {
  switch (ch) {
    case '\r':
      return key('enter');
    case '\n':
      return key('newline');
    case '\t':
      return key('tab');
    case '\u007F':
    case '\b':
      return key('backspace');
    default: {
      const code = ch.charCodeAt(0);
      if (code >= 1 && code <= 26) return { kind: 'ctrl', key: String.fromCharCode(code + 96) };
      return key('ignored');
    }
  }
}

// eslint-disable-next-line no-control-regex
const CONTROL_KEY = /[\u0001-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F\u007F]/;
// eslint-disable-next-line no-control-regex
const CONTROL_KEYS = /([\u0001-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F\u007F])/;

/** Pasted text arrives with CR line ends from most terminals; the prompt keeps LF. */
export function normalizePasted(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Drops control characters (C0 other than newline and tab, DEL, C1) from typed or pasted text. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '');
}

/**
 * One raw input piece → key events. A multi-character piece without escape sequences is typed-ahead
 * or pasted text (terminals without bracketed paste): its line breaks stay in the message, except a
 * single trailing CR (or LF) on one line of text, which is "type then Enter" arriving in one read.
 */
export function decodeKeys(raw: string): KeyEvent[] {
  if (raw.length === 0) return [];
  if (raw.startsWith(ESC)) return [decodeEscape(raw)];
  if (raw.length === 1 && (raw < ' ' || raw === '\u007F')) return [decodeControl(raw)];
  // Keys typed faster than the UI reads share a read: "\x18\x05" is Ctrl-X then Ctrl-E, "\x15abc" is
  // Ctrl-U then text. Control keys other than the line breaks and tabs that text carries split it.
  if (CONTROL_KEY.test(raw)) return raw.split(CONTROL_KEYS).flatMap((piece) => decodeKeys(piece));
  // "type then Tab" in one read: a tab ending a line of typed text is the key (completion), not text.
  if (raw.endsWith('\t') && !/[\r\n]/.test(raw)) return [...decodeKeys(raw.slice(0, -1)), key('tab')];
  const lineBreaks = raw.match(/[\r\n]/g)?.length ?? 0;
  // LF too: keys typed before raw mode was on went through the tty's CR→LF translation.
  if (lineBreaks === 1 && (raw.endsWith('\r') || raw.endsWith('\n'))) {
    const text = printable(raw.slice(0, -1));
    return text ? [{ kind: 'text', text }, key('enter')] : [key('enter')];
  }
  // "line1\" Enter "line2" Enter typed faster than the UI reads: every inner line break follows a
  // backslash (a continuation, as with one key at a time), and the last one is Enter.
  const inner = raw.replace(/(?:\r\n?|\n)$/, '');
  if (inner !== raw && /^(?:[^\r\n]*\\(?:\r\n?|\n))+[^\r\n]*$/.test(inner)) {
    const text = printable(inner.replace(/\\(?:\r\n?|\n)/g, '\n'));
    return [{ kind: 'text', text }, key('enter')];
  }
  const text = printable(normalizePasted(raw));
  return text ? [{ kind: 'text', text }] : [];
}
