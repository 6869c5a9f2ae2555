import { describe, expect, it } from 'vitest';
import { inputView } from '../../src/render/ink/input-view.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('inputView', () => {
  it('shows a prompt that fits whole', () => {
    expect(inputView('a\nb', 1, 40, 5)).toEqual({ text: 'a\nb', cursor: 1, hiddenAbove: 0, hiddenBelow: 0, rows: 2 });
  });

  it('shows the rows around the cursor of a tall prompt, within the budget, and counts the rest', () => {
    const value = lines(60);
    const atEnd = inputView(value, value.length, 40, 10);
    expect(atEnd.rows).toBeLessThanOrEqual(10);
    expect(atEnd.text.endsWith('line 60')).toBe(true);
    expect(atEnd.cursor).toBe(atEnd.text.length);
    expect(atEnd.hiddenAbove + atEnd.text.split('\n').length + atEnd.hiddenBelow).toBe(60);
    expect(atEnd.hiddenBelow).toBe(0);

    const atStart = inputView(value, 0, 40, 10);
    expect(atStart.text.startsWith('line 1\n')).toBe(true);
    expect(atStart.hiddenAbove).toBe(0);
    expect(atStart.hiddenBelow).toBeGreaterThan(0);
    expect(atStart.rows).toBeLessThanOrEqual(10);
  });

  it('counts wrapped rows of long lines against the budget', () => {
    const value = `${'x'.repeat(100)}\n${'y'.repeat(100)}\nshort`;
    const view = inputView(value, value.length, 20, 8);
    expect(view.rows).toBeLessThanOrEqual(8);
    expect(view.text.endsWith('short')).toBe(true);
    expect(view.hiddenAbove).toBeGreaterThan(0);
  });
});
