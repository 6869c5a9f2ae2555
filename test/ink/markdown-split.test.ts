import { describe, expect, it } from 'vitest';
import { findLastSafeSplitPoint } from '../../src/render/ink/markdown-split.js';

describe('findLastSafeSplitPoint', () => {
  it('splits at the last blank line before a new paragraph', () => {
    const text = 'First para.\n\nSecond para.\n\nThird';
    expect(text.slice(0, findLastSafeSplitPoint(text))).toBe('First para.\n\nSecond para.\n\n');
  });

  it('has no split point in a single block', () => {
    expect(findLastSafeSplitPoint('just one paragraph\nstill it')).toBe(0);
    expect(findLastSafeSplitPoint('para\n\n')).toBe(0);
  });

  it('never splits inside a code fence, even at blank lines', () => {
    const text = 'Intro\n\n```js\nconst a = 1;\n\nconst b = 2;\n';
    expect(findLastSafeSplitPoint(text)).toBe('Intro\n\n'.length);
  });

  it('splits after a closed fence', () => {
    const text = '```\ncode\n\nmore\n```\n\nAfter';
    expect(text.slice(findLastSafeSplitPoint(text))).toBe('After');
  });

  it('honours ~~~ fences and longer closing fences', () => {
    const text = '~~~~\n```\n\nnot closed\n~~~\n\nstill code\n';
    expect(findLastSafeSplitPoint(text)).toBe(0);
  });

  it('keeps list items together (a split would restart numbering)', () => {
    expect(findLastSafeSplitPoint('1. one\n\n2. two\n\n3. thr')).toBe(0);
    expect(findLastSafeSplitPoint('- a\n\n  continued\n')).toBe(0);
  });

  it('waits when the partial next line could still become a list item', () => {
    expect(findLastSafeSplitPoint('Para\n\n1')).toBe(0);
    expect(findLastSafeSplitPoint('Para\n\nNext')).toBe(6);
  });
});
