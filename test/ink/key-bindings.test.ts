// What Enter does with the text typed so far (pure: key-bindings.ts resolveEnter).
import { describe, expect, it } from 'vitest';
import { resolveEnter, resolveKey } from '../../src/render/ink/key-bindings.js';

describe('resolveEnter', () => {
  it('sends the text as typed, surrounding spaces and inner newlines included', () => {
    expect(resolveEnter(' two\nlines ', false)).toEqual({ type: 'send', text: ' two\nlines ' });
  });

  it('a trailing backslash becomes a newline instead of sending, also while an answer streams', () => {
    expect(resolveEnter('first line\\', false)).toEqual({ type: 'continue-line', value: 'first line\n' });
    expect(resolveEnter('first line\\', true)).toEqual({ type: 'continue-line', value: 'first line\n' });
    // Only the last backslash is consumed.
    expect(resolveEnter('C:\\dir\\\\', false)).toEqual({ type: 'continue-line', value: 'C:\\dir\\\n' });
  });

  it('blank text sends nothing, busy or not', () => {
    expect(resolveEnter('', false)).toEqual({ type: 'none' });
    expect(resolveEnter(' \n\t', false)).toEqual({ type: 'none' });
    expect(resolveEnter('  ', true)).toEqual({ type: 'none' });
  });

  it('while an answer streams a prompt is held back with a hint, not sent', () => {
    expect(resolveEnter('next question', true)).toEqual({ type: 'still-answering' });
  });
});

describe('resolveKey: the keys people expect (SPEC §8 "Holding up")', () => {
  const ctx = { busy: false, empty: false, exitArmed: false, pasting: false };
  const ctrl = (key: string, prefix: 'ctrl-x' | null = null) => resolveKey({ kind: 'ctrl', key }, { ...ctx, prefix });

  it('Ctrl-G opens the draft in the editor, and so does Ctrl-X then Ctrl-E; Ctrl-E alone goes to the end', () => {
    expect(ctrl('g')).toEqual({ type: 'open-editor' });
    expect(ctrl('x')).toEqual({ type: 'prefix', prefix: 'ctrl-x' });
    expect(ctrl('e', 'ctrl-x')).toEqual({ type: 'open-editor' });
    expect(ctrl('e')).toEqual({ type: 'edit', action: { type: 'end' } });
  });

  it('Ctrl-L redraws, Ctrl-Z suspends, Ctrl-W deletes back to whitespace, Alt+d deletes a word forward', () => {
    expect(ctrl('l')).toEqual({ type: 'redraw' });
    expect(ctrl('z')).toEqual({ type: 'suspend' });
    expect(ctrl('w')).toEqual({ type: 'edit', action: { type: 'delete-to-space-back' } });
    expect(resolveKey({ kind: 'delete-word-forward' }, ctx)).toEqual({ type: 'edit', action: { type: 'delete-word-forward' } });
  });
});
