// What Enter does with the text typed so far (pure: key-bindings.ts resolveEnter).
import { describe, expect, it } from 'vitest';
import { resolveEnter } from '../../src/render/ink/key-bindings.js';

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
