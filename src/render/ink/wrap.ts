/**
 * Word wrapping for rendered Markdown (ANSI colours inside). Two rules a terminal reader relies on:
 * a word is never split — a URL longer than the line gets a line of its own and runs past the width
 * (the terminal soft-wraps it, so it stays clickable and copies whole) — and a wrapped line continues
 * at its own indentation, so code and list items keep their shape.
 */

// SGR and other CSI sequences our renderer writes; none contains a space.
// eslint-disable-next-line no-control-regex
const TOKEN = /(\u001B\[[0-?]*[ -/]*[@-~])| +|[^ \u001B]+|\u001B/g;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-?]*[ -/]*[@-~]/g;

function charWidth(code: number): number {
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || code === 0xfe0f) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1f64f) || (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) return 2;
  return 1;
}

/** Columns the text takes on a terminal (escape codes take none; CJK and emoji take two). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const char of text.replace(ANSI, '')) width += charWidth(char.codePointAt(0)!);
  return width;
}

/** Wraps one line at spaces to `width` columns; continuation lines start with the line's indentation. */
export function wrapLine(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  const indent = ' '.repeat(/^ */.exec(line.replace(ANSI, ''))![0].length);
  const lines: string[] = [];
  let current = '';
  let currentWidth = 0;
  let hasWord = false;
  let space = '';
  for (const [token, escape] of line.matchAll(TOKEN)) {
    if (escape || token === '\u001B') {
      current += token;
    } else if (token.startsWith(' ')) {
      if (hasWord) space += token;
      else {
        current += token;
        currentWidth += token.length;
      }
    } else {
      const w = visibleWidth(token);
      if (hasWord && currentWidth + space.length + w > width) {
        lines.push(current);
        current = indent;
        currentWidth = indent.length;
      } else {
        current += space;
        currentWidth += space.length;
      }
      current += token;
      currentWidth += w;
      space = '';
      hasWord = true;
    }
  }
  lines.push(current);
  return lines;
}

/** Every line of the text wrapped by wrapLine. */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
