import { describe, expect, it } from 'vitest';
import { chipLabelOf, expandedValue, initialInput, inputReducer, remember, type InputAction, type InputState } from '../../src/render/ink/input-state.js';

const run = (state: InputState, ...actions: InputAction[]) => actions.reduce(inputReducer, state);
const typed = (text: string, history: string[] = []) => run(initialInput(history), { type: 'insert', text });

describe('input editor', () => {
  it('inserts at the cursor and moves left/right', () => {
    const s = run(typed('helo'), { type: 'left' }, { type: 'insert', text: 'l' });
    expect(s.value).toBe('hello');
    expect(s.cursor).toBe(4);
  });

  it('backspace and delete remove around the cursor, not across surrogate pairs', () => {
    expect(run(typed('ab😀'), { type: 'backspace' }).value).toBe('ab');
    expect(run(typed('abc'), { type: 'home' }, { type: 'delete' }).value).toBe('bc');
    expect(run(typed('abc'), { type: 'backspace' }, { type: 'backspace' }).cursor).toBe(1);
  });

  it('Ctrl-U / Ctrl-K / Ctrl-W kill within the line', () => {
    const s = run(typed('one two three'), { type: 'word-left' });
    expect(run(s, { type: 'kill-to-end' }).value).toBe('one two ');
    expect(run(s, { type: 'kill-to-start' }).value).toBe('three');
    expect(run(typed('one two three'), { type: 'delete-word-back' }).value).toBe('one two ');
  });

  it('Home/End go to the start/end of the current line of a multi-line prompt', () => {
    const s = run(typed('first\nsecond'), { type: 'home' });
    expect(s.cursor).toBe(6);
    expect(run(s, { type: 'end' }).cursor).toBe(12);
  });

  it('Up/Down walk the history and restore the draft', () => {
    let s = typed('draft', ['one', 'two']);
    s = run(s, { type: 'up' });
    expect(s.value).toBe('two');
    s = run(s, { type: 'up' }, { type: 'up' });
    expect(s.value).toBe('one');
    s = run(s, { type: 'down' }, { type: 'down' });
    expect(s.value).toBe('draft');
  });

  it('Up moves between lines before it walks the history', () => {
    let s = typed('line one\nline two', ['older']);
    s = run(s, { type: 'up' });
    expect(s.value).toBe('line one\nline two');
    expect(s.cursor).toBe(8);
    s = run(s, { type: 'up' });
    expect(s.value).toBe('older');
  });

  it('remember skips blanks and an immediate repeat, and caps the size', () => {
    expect(remember(['a'], 'a')).toEqual(['a']);
    expect(remember(['a'], '  ')).toEqual(['a']);
    const big = Array.from({ length: 1000 }, (_, i) => String(i));
    const next = remember(big, 'new');
    expect(next.length).toBe(1000);
    expect(next[999]).toBe('new');
  });
});

describe('input editor: graphemes, readline words, paste chips (SPEC §8 "Holding up")', () => {
  const FAMILY = '👨\u200d👩\u200d👧';

  it('Left, Right, Backspace and Delete take a ZWJ emoji, a flag and an accented letter whole', () => {
    for (const g of [FAMILY, '🇫🇷', 'e\u0301', '👍🏽', '漢']) {
      const s = typed(`a${g}b`);
      expect(run(s, { type: 'left' }, { type: 'backspace' }).value).toBe('ab');
      expect(run(s, { type: 'left' }, { type: 'left' }).cursor).toBe(1);
      expect(run(s, { type: 'home' }, { type: 'right' }, { type: 'delete' }).value).toBe('ab');
      expect(run(s, { type: 'home' }, { type: 'right' }, { type: 'right' }).cursor).toBe(1 + g.length);
    }
  });

  it('Alt+Backspace, Alt+d and the word motions stop at punctuation; Ctrl-W deletes back to whitespace', () => {
    const path = typed('cp path/to/file-name.txt');
    expect(run(path, { type: 'delete-word-back' }).value).toBe('cp path/to/file-name.');
    expect(run(path, { type: 'delete-to-space-back' }).value).toBe('cp ');
    expect(run(path, { type: 'word-left' }, { type: 'word-left' }).cursor).toBe('cp path/to/file-'.length);
    expect(run(path, { type: 'home' }, { type: 'word-right' }, { type: 'delete-word-forward' }).value).toBe('cp/to/file-name.txt');
  });

  it('a big paste is one chip: one character to move over and delete, its whole text when expanded', () => {
    const big = 'x'.repeat(5000);
    const s = run(typed('before  after'), { type: 'word-left' }, { type: 'left' }, { type: 'paste', active: true }, { type: 'insert', text: big.slice(0, 100) }, { type: 'insert', text: big.slice(100) }, { type: 'paste', active: false });
    expect(s.pastes).toEqual([big]);
    expect(s.value).toHaveLength('before  after'.length + 2);
    expect(expandedValue(s)).toBe(`before ${big} after`);
    expect(chipLabelOf(s)(0)).toBe('[pasted #1 · 4.9 KB · 1 line]');
    expect(run(s, { type: 'backspace' }).value).toBe('before  after');
    expect(run(s, { type: 'left' }, { type: 'delete' }).value).toBe('before  after');
    // Eleven lines are a chip too; ten are not.
    const tall = Array.from({ length: 11 }, (_, i) => `l${i}`).join('\n');
    expect(run(initialInput(), { type: 'insert', text: tall }).pastes).toEqual([tall]);
    expect(run(initialInput(), { type: 'insert', text: tall.slice(0, tall.lastIndexOf('\n')) }).pastes).toEqual([]);
  });

  it('typed text cannot forge a chip; sending clears the pastes', () => {
    const forged = typed(`a${String.fromCodePoint(0xf0000)}b`);
    expect(forged.value).toBe('ab');
    const s = run(initialInput(), { type: 'insert', text: 'y'.repeat(2000) }, { type: 'clear' });
    expect(s.pastes).toEqual([]);
  });

  it('Up and Down move by rows of the box, keeping the column, then walk the history', () => {
    const s = typed('0123456789abcdefghij', ['older']);
    // The cursor at the end of a full row stands on an empty row below it.
    const up = run(s, { type: 'left' }, { type: 'up', width: 10 });
    expect(up.cursor).toBe(9);
    expect(run(up, { type: 'up', width: 10 }).value).toBe('older');
    expect(run(s, { type: 'up', width: 10 }).cursor).toBe(10);
    const wide = run(typed('漢字漢字漢字'), { type: 'home' }, { type: 'right' }, { type: 'down', width: 4 });
    expect(wide.cursor).toBe(3);
  });
});
