// The input box's layout (pure): rows at grapheme boundaries, measured like the terminal draws them
// (CJK and emoji two columns, tabs to multiples of 4, chips as their labels), and the window of rows
// shown around the cursor with what is hidden above and below.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { cursorRow, inputView, layoutRows, type InputView } from '../../src/render/ink/input-layout.js';
import { chipChar } from '../../src/render/ink/paste-chips.js';

const noChips = () => '';
const text = (view: InputView) => view.rows.map((row) => row.map((s) => s.text).join(''));
const cursorSpan = (view: InputView) => view.rows.flat().find((s) => s.cursor);
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('layoutRows', () => {
  it('wraps a long line at the width and counts every row', () => {
    const rows = layoutRows('x'.repeat(25), 10, noChips);
    expect(rows).toEqual([{ start: 0, end: 10 }, { start: 10, end: 20 }, { start: 20, end: 25 }]);
    expect(layoutRows('a\n\nb', 10, noChips)).toHaveLength(3);
  });

  it('never puts half of a wide character on a row', () => {
    const value = 'a漢字仮名';
    const rows = layoutRows(value, 4, noChips);
    expect(rows.map((r) => value.slice(r.start, r.end))).toEqual(['a漢', '字仮', '名']);
    const family = '👨\u200d👩\u200d👧';
    const emoji = layoutRows(`ab${family}`, 3, noChips);
    expect(emoji.map((r) => `ab${family}`.slice(r.start, r.end))).toEqual(['ab', family]);
  });

  it('gives a full last row an empty row after it when the cursor is at the end', () => {
    expect(layoutRows('x'.repeat(10), 10, noChips, 10)).toHaveLength(2);
    expect(layoutRows('x'.repeat(10), 10, noChips, 3)).toHaveLength(1);
    expect(layoutRows('漢'.repeat(5), 10, noChips, 5)).toHaveLength(2);
  });

  it('measures a tab to the next multiple of 4 from the start of its row', () => {
    const rows = layoutRows('ab\tcd\tef', 8, noChips);
    // ab + 2 columns of tab + cd = 6, then the tab would reach 8: it still fits; ef wraps.
    expect(rows.map((r) => 'ab\tcd\tef'.slice(r.start, r.end))).toEqual(['ab\tcd\t', 'ef']);
  });

  it('a chip is as wide as its label and never split', () => {
    const value = `ab${chipChar(0)}cd`;
    const rows = layoutRows(value, 12, () => '[pasted #1 · 9.8 KB · 1 line]');
    expect(rows.map((r) => value.slice(r.start, r.end))).toEqual(['ab', chipChar(0), 'cd']);
  });

  it('the cursor row at a wrap point is the row its character starts', () => {
    const rows = layoutRows('x'.repeat(25), 10, noChips);
    expect(cursorRow(rows, 10)).toBe(1);
    expect(cursorRow(rows, 9)).toBe(0);
    expect(cursorRow(rows, 25)).toBe(2);
  });
});

describe('inputView', () => {
  it('draws the cursor on a whole grapheme, a space at the end of a line', () => {
    const value = 'a😀b';
    expect(cursorSpan(inputView(value, 1, 20, 5, noChips))).toEqual({ kind: 'text', text: '😀', cursor: true });
    expect(cursorSpan(inputView(value, value.length, 20, 5, noChips))).toEqual({ kind: 'text', text: ' ', cursor: true });
    expect(cursorSpan(inputView('cafe\u0301', 3, 20, 5, noChips))!.text).toBe('e\u0301');
  });

  it('draws a tab as spaces and keeps every row within the width', () => {
    const view = inputView('col1\tcol2\t漢字\tx', 0, 12, 5, noChips);
    expect(text(view)).toEqual(['col1    col2', '    漢字    ', 'x']);
    for (const row of text(view)) expect(stringWidth(row)).toBeLessThanOrEqual(12);
  });

  it('draws a chip as its label, the cursor on the whole of it', () => {
    const value = `a${chipChar(0)}b`;
    const view = inputView(value, 1, 40, 5, () => '[pasted #1 · 9.8 KB · 1 line]');
    expect(text(view)).toEqual(['a[pasted #1 · 9.8 KB · 1 line]b']);
    expect(cursorSpan(view)).toEqual({ kind: 'chip', text: '[pasted #1 · 9.8 KB · 1 line]', cursor: true });
    expect(text(inputView(value, 0, 12, 5, () => '[pasted #1 · 9.8 KB · 1 line]'))[1]).toBe('[pasted #1…]');
  });

  it('shows a draft that fits whole', () => {
    expect(inputView('a\nb', 1, 40, 5, noChips)).toMatchObject({ hiddenAbove: 0, hiddenBelow: 0, height: 2 });
  });

  it('a tall draft shows the rows around the cursor within the budget, markers included, and counts the rest', () => {
    const value = lines(60);
    const atEnd = inputView(value, value.length, 40, 10, noChips);
    expect(atEnd.height).toBeLessThanOrEqual(10);
    expect(text(atEnd).at(-1)).toBe('line 60 ');
    expect(atEnd.hiddenBelow).toBe(0);
    expect(atEnd.hiddenAbove + atEnd.rows.length).toBe(60);

    const atStart = inputView(value, 0, 40, 10, noChips);
    expect(text(atStart)[0]).toBe('line 1');
    expect(atStart.hiddenAbove).toBe(0);
    expect(atStart.hiddenBelow + atStart.rows.length).toBe(60);
    expect(atStart.height).toBeLessThanOrEqual(10);

    const middle = inputView(value, value.indexOf('line 30'), 40, 10, noChips);
    expect(middle.height).toBeLessThanOrEqual(10);
    expect(middle.hiddenAbove).toBeGreaterThan(0);
    expect(middle.hiddenBelow).toBeGreaterThan(0);
    expect(cursorSpan(middle)).toBeDefined();
  });

  it('one long line taller than the budget is windowed by rows, the cursor row always shown', () => {
    const value = 'y'.repeat(900);
    for (const cursor of [0, 450, 900]) {
      const view = inputView(value, cursor, 34, 9, noChips);
      expect(view.height).toBeLessThanOrEqual(9);
      expect(cursorSpan(view), `cursor ${cursor}`).toBeDefined();
    }
    expect(inputView(value, 900, 34, 9, noChips).hiddenAbove).toBeGreaterThan(0);
  });
});
