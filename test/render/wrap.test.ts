// Wrapping rendered text (SPEC §8): by the renderer, indentation kept, CJK broken between characters,
// long words broken, URLs never, colours reopened on continuation rows, tabs to multiples of 4.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { SgrState, stripColour } from '../../src/render/ink/sgr.js';
import { expandTabs, wrapLine, wrapText } from '../../src/render/ink/wrap.js';

const GREEN = '\u001B[32m';
const RESET_FG = '\u001B[39m';
const BOLD = '\u001B[1m';

describe('wrapLine', () => {
  it('leaves a line that fits alone', () => {
    expect(wrapLine('short line', 20)).toEqual(['short line']);
    expect(wrapLine('漢字', 4)).toEqual(['漢字']);
  });

  it('breaks at spaces and continues at the line\'s indentation', () => {
    expect(wrapLine('  one two three four', 10)).toEqual(['  one two', '  three', '  four']);
  });

  it('breaks CJK text between characters, never in the middle of one, keeping the indent', () => {
    const rows = wrapLine(`  ${'漢字仮名'.repeat(5)}`, 12);
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) {
      expect(row.startsWith('  ')).toBe(true);
      expect(stringWidth(row)).toBeLessThanOrEqual(12);
    }
    expect(rows.join('').replace(/ /g, '')).toBe('漢字仮名'.repeat(5));
  });

  it('breaks an odd-width row before a wide character rather than cutting it', () => {
    const rows = wrapLine('a漢漢漢漢', 4);
    expect(rows).toEqual(['a漢', '漢漢', '漢']);
  });

  it('breaks a word longer than the line at grapheme boundaries', () => {
    const rows = wrapLine(`  ${'x'.repeat(25)}`, 10);
    expect(rows).toEqual(['  xxxxxxxx', '  xxxxxxxx', '  xxxxxxxx', '  x']);
    const emoji = wrapLine('👨\u200d👩\u200d👧'.repeat(6), 5);
    for (const row of emoji) expect([...new Intl.Segmenter().segment(row)].every((s) => s.segment === '👨\u200d👩\u200d👧')).toBe(true);
  });

  it('never breaks a URL: it gets a row of its own and runs past the width', () => {
    const url = `https://example.com/${'a'.repeat(40)}`;
    expect(wrapLine(`see ${url} now`, 20)).toEqual(['see', url, 'now']);
    expect(wrapLine(`  (${url})`, 20)).toEqual([`  (${url})`]);
  });

  it('takes the continuation prefix it is given (a list item\'s text column)', () => {
    expect(wrapLine('* alpha beta gamma', 12, '  ')).toEqual(['* alpha beta', '  gamma']);
  });

  it('reopens the colour left open above a break and closes it at the end of the row', () => {
    const rows = wrapLine(`  ${GREEN}"one two three four five"${RESET_FG};`, 14);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows[0]!.endsWith('\u001B[0m')).toBe(true);
    expect(rows[1]!.startsWith(`  ${GREEN}`)).toBe(true);
    expect(rows.at(-1)!.endsWith(`${RESET_FG};`)).toBe(true);
  });
});

describe('tabs and wrapText', () => {
  it('expands tabs to the next multiple of 4, escape codes taking no column', () => {
    expect(expandTabs('a\tb')).toBe('a   b');
    expect(expandTabs('abcd\te')).toBe('abcd    e');
    expect(expandTabs(`${GREEN}ab${RESET_FG}\tc`)).toBe(`${GREEN}ab${RESET_FG}  c`);
    expect(expandTabs('漢\tx')).toBe('漢  x');
  });

  it('wraps each line of a text', () => {
    expect(wrapText('one two\nthree four', 5)).toBe('one\ntwo\nthree\nfour');
  });
});

describe('SGR state and NO_COLOR', () => {
  it('tracks what is open, reset by 0 and the matching off codes', () => {
    const state = new SgrState();
    state.apply('1;32');
    expect(state.open()).toBe('\u001B[1;32m');
    state.apply('39');
    expect(state.open()).toBe('\u001B[1m');
    state.apply('38;5;196');
    state.apply('3');
    expect(state.open()).toBe('\u001B[1;38;5;196;3m');
    state.apply('0');
    expect(state.active).toBe(false);
    state.apply('38;2;1;2;3');
    state.apply('');
    expect(state.open()).toBe('');
  });

  it('NO_COLOR keeps bold, italic, underline and strikethrough, drops every colour', () => {
    expect(stripColour(`${BOLD}b\u001B[22m \u001B[3mi\u001B[23m \u001B[4mu\u001B[24m \u001B[9ms\u001B[29m`)).toBe(
      `${BOLD}b\u001B[22m \u001B[3mi\u001B[23m \u001B[4mu\u001B[24m \u001B[9ms\u001B[29m`,
    );
    expect(stripColour(`${GREEN}g${RESET_FG} \u001B[1;31mbr\u001B[0m \u001B[38;5;196;48;2;1;2;3mx\u001B[39;49m`)).toBe(
      'g \u001B[1mbr\u001B[0m x',
    );
  });
});
