/** Small text helpers shared by the Ink views (no Ink import, so reducers can use them too). */

// CSI (colours, cursor) and OSC (hyperlinks, titles) sequences.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** The last `max` lines of text and how many were left out above them. */
export function tailLines(text: string, max: number): { text: string; hidden: number } {
  if (max <= 0) return { text: '', hidden: text.split('\n').length };
  let index = text.length;
  let count = 0;
  while (count < max) {
    const i = text.lastIndexOf('\n', index - 1);
    if (i === -1) return { text, hidden: 0 };
    index = i;
    count++;
  }
  const hidden = text.slice(0, index).split('\n').length;
  return { text: text.slice(index + 1), hidden };
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
