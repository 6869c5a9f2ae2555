// SPEC §8 "Holding up", the screen is never lost: a big paste is one chip, a long prompt stays inside
// the window, and a resize leaves no piece of the old live region behind. Real terminal (tmux).
import { expect, it } from 'vitest';
import { describeInTerminal } from '../helpers/tmux.js';
import { expectScrollbackKept, inputLine, pause, READY, screenLines, useChatTerminals, wholeHistory } from './holding-up-kit.js';

describeInTerminal('the screen is never lost', () => {
  const ctx = useChatTerminals();

  it('a pasted 10 KB line is one chip, moved over and deleted as one character, sent in full; nothing is cleared', async () => {
    const { s, raw } = ctx.chat({ width: 100, height: 30 });
    await s.waitForText(READY);
    const big = 'abcdefghi '.repeat(1000);
    s.paste(big);
    let screen = await s.waitForText('[pasted #1 · 9.8 KB · 1 line]');
    expect(screenLines(screen).filter((l) => l.includes('abcdefghi'))).toEqual([]);
    s.type('y');
    await s.waitFor((now) => inputLine(now) === '[pasted #1 · 9.8 KB · 1 line]y', 'the chip then y');
    // Left steps over y, Backspace takes the whole chip.
    s.keys('Left', 'BSpace');
    screen = await s.waitFor((now) => inputLine(now) === 'y', 'the chip deleted');
    s.keys('End', 'C-u');
    await s.waitForText(READY);
    s.type('before ');
    s.paste(big);
    s.type(' after');
    await s.waitFor((now) => inputLine(now) === 'before [pasted #2 · 9.8 KB · 1 line] after', 'the second chip between words');
    s.keys('Enter');
    expect(await ctx.request(1, s)).toBe(`before ${big} after`);
    await s.waitFor((now) => /in \d+ \/ out \d+ tokens/.test(now), 'the end of the answer');
    expectScrollbackKept(raw());
  });

  it('a long prompt under the chip limit stays inside a small window: "… N more lines above", the cursor row shown', async () => {
    const { s, raw } = ctx.chat({ width: 40, height: 15 });
    await s.waitForText(READY);
    // 900 characters in one line: 27 rows of 34 columns, in a 15-row window.
    const words = Array.from({ length: 100 }, (_, i) => `w${String(i).padStart(3, '0')}ab`).join(' ');
    s.paste(`${words.slice(0, 899)}Z`);
    const screen = await s.waitFor((now) => /… \d+ more lines above/.test(now) && now.includes('Z'), 'the end of the prompt with a marker above');
    const lines = screenLines(screen);
    expect(lines.some((l) => l.includes('╭')), screen).toBe(true);
    expect(lines.some((l) => l.includes('╰')), screen).toBe(true);
    const top = lines.findIndex((l) => l.includes('╭'));
    const bottom = lines.findIndex((l) => l.includes('╰'));
    expect(bottom - top - 1, screen).toBeLessThanOrEqual(15 - 6);
    // Home goes to the start of the line: the first row is shown, the marker is below now.
    s.keys('C-a');
    await s.waitFor((now) => /… \d+ more lines below/.test(now) && now.includes('w000ab'), 'the first row with a marker below');
    expectScrollbackKept(raw());
  });

  it('shrinking the window while idle (100 → 40 columns) and widening it again leaves one input box, no pieces', async () => {
    const { s, raw } = ctx.chat({ width: 100, height: 30 });
    await s.waitForText(READY);
    s.submit('a line before the resize');
    await s.waitFor((now) => /in \d+ \/ out \d+ tokens/.test(now), 'the answer');
    const oneBox = (screen: string) => {
      const lines = screenLines(screen);
      return (
        lines.filter((l) => l.includes('─')).length === 2 &&
        lines.filter((l) => l.includes('Ask anything')).length === 1 &&
        lines.filter((l) => l.includes('· temp default ·')).length === 1
      );
    };
    expect(oneBox(s.screen()), s.screen()).toBe(true);
    s.resize(40, 30);
    await s.waitFor((now) => screenLines(now).some((l) => l.startsWith('╭') && l.trimEnd().length === 40), 'the box at 40 columns');
    await pause(500);
    expect(oneBox(s.screen()), s.screen()).toBe(true);
    s.resize(100, 30);
    await s.waitFor((now) => screenLines(now).some((l) => l.startsWith('╭') && l.trimEnd().length === 100), 'the box at 100 columns');
    await pause(500);
    expect(oneBox(s.screen()), s.screen()).toBe(true);
    // The terminal may have moved the transcript up into the scrollback while reflowing: still there.
    expect(wholeHistory(s)).toContain('› a line before the resize');
    expectScrollbackKept(raw());
  });

  it('shrinking the height below the live region does not clear the terminal', async () => {
    const { s, raw } = ctx.chat({ width: 60, height: 30 });
    await s.waitForText(READY);
    s.submit('first');
    await s.waitFor((now) => /in \d+ \/ out \d+ tokens/.test(now), 'the answer');
    s.paste(Array.from({ length: 8 }, (_, i) => `row ${i + 1}`).join('\n'));
    await s.waitForText('row 8');
    s.resize(60, 10);
    await pause(300);
    s.type('!');
    await s.waitForText('row 8!');
    await pause(300);
    expectScrollbackKept(raw());
  });
});
