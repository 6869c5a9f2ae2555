// What Tab puts in the input box and what the status line then says (pure: commands.ts).
import { describe, expect, it } from 'vitest';
import { parseInput, tabCompletion, unknownCommandNotice } from '../../src/render/ink/commands.js';

describe('tabCompletion', () => {
  it('one match completes with a space and needs no hint', () => {
    expect(tabCompletion('/he')).toEqual({ value: '/help ', hint: null });
  });

  it('several commands complete to their common prefix and are listed with their slash', () => {
    expect(tabCompletion('/mo')).toEqual({ value: '/model', hint: '/model  /models' });
  });

  it('model names are listed as they are typed, without a slash', () => {
    const names = () => ['fast', 'fallback', 'openai/gpt-4o'];
    expect(tabCompletion('/model fa', names)).toEqual({ value: '/model fa', hint: 'fast  fallback' });
  });

  it('lists the first 12 of a long list and counts the rest', () => {
    const names = () => Array.from({ length: 30 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    const result = tabCompletion('/model m', names)!;
    expect(result.value).toBe('/model m');
    const hint = result.hint!;
    expect(hint.split('  ').slice(0, 12)).toEqual(names().slice(0, 12));
    expect(hint).not.toContain('m12');
    expect(hint.endsWith('  … 18 more')).toBe(true);
  });

  it('no match keeps the text and says where the list is', () => {
    expect(tabCompletion('/zz')).toEqual({ value: '/zz', hint: 'no command starts with that: /help lists them' });
    expect(tabCompletion('/model zz', () => ['fast'])).toEqual({
      value: '/model zz',
      hint: 'no alias or known model id starts with that: /models lists them',
    });
  });

  it('does nothing on a prompt, or on a command argument that is not a model', () => {
    expect(tabCompletion('hello')).toBeNull();
    expect(tabCompletion('/system fa', () => ['fast'])).toBeNull();
  });
});

describe('unknownCommandNotice', () => {
  const unknown = (text: string) => {
    const parsed = parseInput(text);
    if (parsed.kind !== 'unknown') throw new Error(`${text} parsed as ${parsed.kind}`);
    return parsed;
  };

  it('offers the closest command when there is one', () => {
    expect(unknownCommandNotice(unknown('/modle x'))).toBe('unknown command /modle — did you mean /model? (/help lists commands · //modle sends it as text)');
  });

  it('points to /help when nothing is close', () => {
    expect(unknownCommandNotice(unknown('/zzzzzzzz'))).toBe('unknown command /zzzzzzzz (/help lists commands · //zzzzzzzz sends it as text)');
  });
});
