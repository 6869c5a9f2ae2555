// The editor's text model (SPEC §8 "Holding up"): graphemes, display widths and word boundaries with
// emoji, ZWJ sequences, CJK, tabs and combining marks.
import { describe, expect, it } from 'vitest';
import {
  displayWidth, graphemes, graphemeWidth, nextBoundary, previousBoundary, spaceWordStartBefore, wordEndAfter, wordStartBefore,
} from '../../src/render/ink/graphemes.js';

const FAMILY = '👨\u200d👩\u200d👧';
const FLAG = '🇫🇷';
const E_ACUTE = 'e\u0301';
const THUMB = '👍🏽';

describe('graphemes and widths', () => {
  it.each([
    ['a', 1],
    ['漢', 2],
    ['한', 2],
    ['😀', 2],
    [FAMILY, 2],
    [FLAG, 2],
    [THUMB, 2],
    [E_ACUTE, 1],
    ['Ａ', 2], // fullwidth Latin
    ['ｶ', 1], // halfwidth katakana
  ])('%j takes %i column(s)', (g, width) => {
    expect(graphemes(g)).toHaveLength(1);
    expect(graphemeWidth(g)).toBe(width);
  });

  it('a tab reaches the next multiple of 4 from where it starts', () => {
    expect(graphemeWidth('\t', 0)).toBe(4);
    expect(graphemeWidth('\t', 1)).toBe(3);
    expect(graphemeWidth('\t', 4)).toBe(4);
    expect(displayWidth('ab\tc')).toBe(5);
    expect(displayWidth('漢\tx')).toBe(5);
    expect(displayWidth('\t', 2)).toBe(2);
  });

  it('measures mixed text', () => {
    expect(displayWidth(`a${FAMILY}b`)).toBe(4);
    expect(displayWidth('漢字 and café')).toBe(13);
    expect(displayWidth(`caf${E_ACUTE}`)).toBe(4);
  });
});

describe('grapheme boundaries', () => {
  it('steps over a ZWJ sequence, a flag, a skin tone and a combining mark whole', () => {
    for (const g of [FAMILY, FLAG, THUMB, E_ACUTE, '漢', '😀']) {
      const text = `a${g}b`;
      expect(previousBoundary(text, 1 + g.length)).toBe(1);
      expect(nextBoundary(text, 1)).toBe(1 + g.length);
    }
  });

  it('stops at the ends', () => {
    expect(previousBoundary('abc', 0)).toBe(0);
    expect(nextBoundary('abc', 3)).toBe(3);
    expect(previousBoundary('a\nb', 2)).toBe(1);
  });

  it('finds a boundary deep inside a long text without segmenting all of it', () => {
    const long = `${'x'.repeat(100_000)}${FAMILY}${'y'.repeat(10)}`;
    const at = 100_000 + FAMILY.length;
    expect(previousBoundary(long, at)).toBe(100_000);
    expect(nextBoundary(long, 100_000)).toBe(at);
    const cjk = '漢'.repeat(5000);
    expect(previousBoundary(cjk, 4000)).toBe(3999);
    expect(nextBoundary(cjk, 4000)).toBe(4001);
  });
});

describe('word boundaries (readline)', () => {
  const path = 'cp path/to/file-name.txt';

  it('Alt+Backspace stops at punctuation: path/to/file-name.txt loses txt, then name.', () => {
    expect(wordStartBefore(path, path.length)).toBe(path.length - 3);
    expect(wordStartBefore(path, path.length - 3)).toBe(path.indexOf('name'));
    expect(wordStartBefore(path, path.indexOf('file'))).toBe(path.indexOf('to/'));
  });

  it('Alt+f moves to the end of the next word', () => {
    expect(wordEndAfter(path, 0)).toBe(2);
    expect(wordEndAfter(path, 2)).toBe(path.indexOf('/'));
    expect(wordEndAfter(path, path.indexOf('-'))).toBe(path.indexOf('.'));
  });

  it('Ctrl-W deletes back to whitespace', () => {
    expect(spaceWordStartBefore(path, path.length)).toBe(3);
    expect(spaceWordStartBefore('one two   ', 10)).toBe(4);
  });

  it('counts accented letters, CJK and digits as word characters; emoji separate words', () => {
    const text = `café${E_ACUTE} 漢字2 ${FAMILY}x`;
    expect(wordStartBefore(text, text.indexOf(' 漢'))).toBe(0);
    expect(wordStartBefore(text, text.indexOf(` ${FAMILY}`))).toBe(text.indexOf('漢'));
    expect(wordStartBefore(text, text.length)).toBe(text.length - 1);
    expect(wordStartBefore(text, text.length - 1)).toBe(text.indexOf('漢'));
  });
});
