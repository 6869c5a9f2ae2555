/**
 * Markdown → terminal text with marked + marked-terminal. This module is heavy (highlight.js), so
 * the UI loads it with import() after the prompt is on screen (see markdown-loader.ts).
 */
import { Marked, type Tokens } from 'marked';
import Renderer from 'marked-terminal';
import { stripColour } from './sgr.js';
import { stripAnsi } from './text.js';
import { expandTabs, visibleWidth, wrapLine } from './wrap.js';

const METHODS = [
  'text', 'code', 'blockquote', 'html', 'heading', 'hr', 'list', 'listitem', 'checkbox', 'paragraph',
  'table', 'tablerow', 'tablecell', 'strong', 'em', 'codespan', 'br', 'del', 'link', 'image',
] as const;

// One Marked per width and colour setting: resizes reuse them.
const cache = new Map<string, Marked>();

/** Marks the lines of a table (already fitted to the width) so they are never wrapped again. */
const TABLE_MARK = '\u0000';

const sgr = (open: number, close: number) => (text: string) => `\u001B[${open}m${text}\u001B[${close}m`;
const bold = sgr(1, 22);
const identity = (text: string) => text;

/**
 * NO_COLOR forbids colour, not emphasis (SPEC §8): the styles marked-terminal would draw with chalk
 * colours, as attributes only.
 */
const ATTRIBUTE_STYLES = {
  code: identity, blockquote: identity, html: identity, codespan: identity, link: identity, hr: identity,
  listitem: identity, table: identity, paragraph: identity,
  heading: bold,
  firstHeading: (text: string) => bold(sgr(4, 24)(text)),
  strong: bold,
  em: sgr(3, 23),
  del: sgr(9, 29),
  href: sgr(4, 24),
};

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

/** `│ ` before every line of a quote (nested quotes get one bar each). */
function quoteBar(text: string, color: boolean): string {
  const bar = color ? '\u001B[90m│\u001B[39m ' : '│ ';
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => `${bar}${line}`)
    .join('\n');
}

function createMarked(width: number, color: boolean): Marked {
  // No reflow by marked-terminal: it joins a paragraph's single line breaks (poems, addresses) and
  // splits long words (URLs) at the width. wrapRendered() wraps afterwards, by our rules.
  const renderer = new Renderer({ width, reflowText: false, tab: 2, emoji: false, showSectionPrefix: true, ...(color ? {} : ATTRIBUTE_STYLES) });
  const extension: { renderer: Record<string, (...args: unknown[]) => unknown>; useNewRenderer: boolean } = {
    renderer: {},
    useNewRenderer: true,
  };
  for (const name of METHODS) {
    extension.renderer[name] = function (this: { options: unknown; parser: unknown }, ...args: unknown[]) {
      renderer.options = this.options;
      renderer.parser = this.parser;
      const parser = this.parser as { parse(tokens: unknown): string; parseInline(tokens: unknown): string };
      if (name === 'table') {
        // Tables wider than the terminal get narrower, wrapping columns instead of breaking the frame;
        // each column aligned as its delimiter row says.
        const token = args[0] as Tokens.Table;
        const cells = [token.header, ...token.rows];
        const natural = token.header.map((_, col) => Math.max(3, ...cells.map((row) => (row[col]?.text ?? '').length)));
        const colWidths = fitColumns(natural, width);
        const colAligns = token.align.map((a) => a ?? 'left');
        renderer.tableSettings = colWidths ? { colWidths, wordWrap: true, colAligns } : { colAligns };
        const table = (renderer.table as (...a: unknown[]) => string).apply(renderer, args);
        return table.replace(/^(?=.*\S)/gm, TABLE_MARK);
      }
      if (name === 'blockquote') {
        const token = args[0] as Tokens.Blockquote;
        return `${quoteBar(parser.parse(token.tokens), color)}\n\n`;
      }
      if (name === 'link') {
        // Plain "text (url)": OSC 8 hyperlinks confuse width measurement in Ink and in tmux.
        const token = args[0] as Tokens.Link;
        const text = parser.parseInline(token.tokens);
        return text && stripAnsi(text) !== token.href ? `${text} (${token.href})` : token.href;
      }
      return (renderer[name] as (...a: unknown[]) => unknown).apply(renderer, args);
    };
  }
  return new Marked(extension as never);
}

// What a wrapped row continues under: indentation and quote bars as they are, a list marker as
// spaces (the text column of the item).
const LEAD = /^((?:\s|│)*)((?:[*•-]|\d+\.)\s+)?/;

function continuationOf(line: string, color: boolean): string {
  const [, lead = '', marker = ''] = LEAD.exec(stripAnsi(line)) ?? [];
  const bars = color ? lead.replace(/│/g, '\u001B[90m│\u001B[39m') : lead;
  return bars + ' '.repeat(marker.length);
}

/** Wraps at spaces, never inside a URL, each row under its line's text (code, lists, quotes). */
function wrapRendered(text: string, width: number, color: boolean): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.includes(TABLE_MARK)) return [line.replaceAll(TABLE_MARK, '')];
      const expanded = expandTabs(line);
      return visibleWidth(expanded) <= width ? [expanded] : wrapLine(expanded, width, continuationOf(expanded, color));
    })
    .join('\n');
}

/** Renders one complete or partial Markdown text; no trailing blank lines. */
export function renderMarkdown(text: string, width: number, color: boolean): string {
  const w = Math.max(20, width);
  const key = `${w}:${color}`;
  let marked = cache.get(key);
  if (!marked) {
    marked = createMarked(w, color);
    cache.set(key, marked);
  }
  let out: string;
  try {
    out = marked.parse(text, { async: false }) as string;
  } catch {
    out = text;
  }
  out = wrapRendered(out.replace(/\s+$/, ''), w, color);
  return color ? out : stripColour(out);
}
