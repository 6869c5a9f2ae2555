/**
 * Markdown → terminal text with marked + marked-terminal. This module is heavy (highlight.js), so
 * the UI loads it with import() after the prompt is on screen (see markdown-loader.ts).
 */
import { Marked, type Tokens } from 'marked';
import Renderer from 'marked-terminal';
import { stripAnsi } from './text.js';
import { wrapLine } from './wrap.js';

const METHODS = [
  'text', 'code', 'blockquote', 'html', 'heading', 'hr', 'list', 'listitem', 'checkbox', 'paragraph',
  'table', 'tablerow', 'tablecell', 'strong', 'em', 'codespan', 'br', 'del', 'link', 'image',
] as const;

// One Marked per width: resizes reuse them.
const cache = new Map<string, Marked>();

/** Column widths that fit `width`: natural widths, the widest columns shrunk first, cells wrapped. */
export function fitColumns(natural: number[], width: number): number[] | null {
  // cli-table3 counts one border per column plus one, and one space of padding on each side.
  const overhead = natural.length + 1 + natural.length * 2;
  const total = natural.reduce((a, b) => a + b, 0) + overhead;
  if (total <= width) return null;
  const budget = Math.max(natural.length * 3, width - overhead);
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) - budget;
  while (excess > 0) {
    const max = Math.max(...widths);
    if (max <= 3) break;
    const i = widths.indexOf(max);
    widths[i] = max - 1;
    excess--;
  }
  return widths.map((w) => w + 2);
}

function createMarked(width: number): Marked {
  // No reflow by marked-terminal: it joins a paragraph's single line breaks (poems, addresses) and
  // splits long words (URLs) at the width. wrapRendered() wraps afterwards, by our rules.
  const renderer = new Renderer({ width, reflowText: false, tab: 2, emoji: false, showSectionPrefix: true });
  const extension: { renderer: Record<string, (...args: unknown[]) => unknown>; useNewRenderer: boolean } = {
    renderer: {},
    useNewRenderer: true,
  };
  for (const name of METHODS) {
    extension.renderer[name] = function (this: { options: unknown; parser: unknown }, ...args: unknown[]) {
      renderer.options = this.options;
      renderer.parser = this.parser;
      if (name === 'table') {
        // Tables wider than the terminal get narrower, wrapping columns instead of breaking the frame.
        const token = args[0] as Tokens.Table;
        const cells = [token.header, ...token.rows];
        const natural = token.header.map((_, col) => Math.max(3, ...cells.map((row) => (row[col]?.text ?? '').length)));
        const colWidths = fitColumns(natural, width);
        renderer.tableSettings = colWidths ? { colWidths, wordWrap: true } : {};
      }
      if (name === 'link') {
        // Plain "text (url)": OSC 8 hyperlinks confuse width measurement in Ink and in tmux.
        const token = args[0] as Tokens.Link;
        const text = (this.parser as { parseInline(t: unknown): string }).parseInline(token.tokens);
        return text && stripAnsi(text) !== token.href ? `${text} (${token.href})` : token.href;
      }
      return (renderer[name] as (...a: unknown[]) => unknown).apply(renderer, args);
    };
  }
  return new Marked(extension as never);
}

// A table row (cli-table3 borders): already fitted to the width by fitColumns, never re-wrapped.
const TABLE_LINE = /^(?:\u001B\[[0-9;]*m)*\s*[┌│├└]/;

/** Wraps at spaces, never inside a word (URL), keeping each line's indentation (code, lists). */
function wrapRendered(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => (TABLE_LINE.test(line) ? [line] : wrapLine(line, width)))
    .join('\n');
}

/** Renders one complete or partial Markdown text; no trailing blank lines. */
export function renderMarkdown(text: string, width: number, color: boolean): string {
  const w = Math.max(20, width);
  const key = String(w);
  let marked = cache.get(key);
  if (!marked) {
    marked = createMarked(w);
    cache.set(key, marked);
  }
  let out: string;
  try {
    out = marked.parse(text, { async: false }) as string;
  } catch {
    out = text;
  }
  out = wrapRendered(out.replace(/\s+$/, ''), w);
  return color ? out : stripAnsi(out);
}
