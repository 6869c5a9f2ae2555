import { describe, expect, it } from 'vitest';
import { initialInput, inputReducer, remember, type InputAction, type InputState } from '../../src/render/ink/input-state.js';

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
