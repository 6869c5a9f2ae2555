// SPEC §8 "Holding up", characters: tabs, emoji, ZWJ sequences and CJK in the input box and in the
// transcript, measured the way the terminal draws them. Real terminal (tmux).
import { expect, it } from 'vitest';
import { describeInTerminal } from '../helpers/tmux.js';
import { columnsOf, inputLine, READY, screenLines, useChatTerminals } from './holding-up-kit.js';

const FAMILY = '👨\u200d👩\u200d👧';

describeInTerminal('characters in the chat', () => {
  const ctx = useChatTerminals();

  it('a pasted tab shows as spaces to the next multiple of 4 inside the box, is sent as a tab, and leaves no stray border', async () => {
    const { s } = ctx.chat({ width: 60 });
    await s.waitForText(READY);
    s.paste('col1\tcol2');
    const screen = await s.waitFor((now) => now.includes('col2'), 'the pasted text');
    const line = screenLines(screen).find((l) => l.includes('col1'))!;
    expect(line, screen).toMatch(/^│ › col1 {4}col2 +│$/);
    expect(columnsOf(line)).toBe(60);
    s.keys('Enter');
    expect(await ctx.request(1, s)).toBe('col1\tcol2');
    const after = await s.waitFor((now) => /in \d+ \/ out \d+ tokens/.test(now), 'the answer');
    expect(screenLines(after).filter((l) => /^\s*│\s*$/.test(l)), after).toEqual([]);
    expect(screenLines(after).filter((l) => l.includes('╭')).length, after).toBe(1);
  });

  it('the cursor on an emoji draws the whole emoji', async () => {
    const { s } = ctx.chat();
    await s.waitForText(READY);
    s.type('a😀b');
    await s.waitFor((now) => inputLine(now) === 'a😀b', 'the typed text');
    s.keys('Left', 'Left');
    await new Promise((r) => setTimeout(r, 300));
    const screen = s.screen();
    expect(inputLine(screen), screen).toBe('a😀b');
    expect(screen).not.toContain('\uFFFD');
  });

  it('Left and Backspace take a ZWJ emoji whole; a combining mark goes with its letter', async () => {
    const { s } = ctx.chat();
    await s.waitForText(READY);
    s.type(`a${FAMILY}b`);
    await s.waitFor((now) => (inputLine(now) ?? '').endsWith('b'), 'the typed text');
    s.keys('Left', 'BSpace');
    await s.waitFor((now) => inputLine(now) === 'ab', 'the emoji deleted whole');
    s.keys('End');
    s.type(' cafe\u0301!');
    await s.waitFor((now) => (inputLine(now) ?? '').endsWith('!'), 'the accented word');
    s.keys('Left', 'BSpace');
    await s.waitFor((now) => (inputLine(now) ?? '') === 'ab caf!', 'é deleted whole');
    s.keys('Enter');
    expect(await ctx.request(1, s)).toBe('ab caf!');
  });

  it('a CJK answer and a long unbroken word are wrapped by the renderer, each row indented', async () => {
    const { s } = ctx.chat({ width: 60 });
    await s.waitForText(READY);
    const cjk = '漢字仮名交じり文'.repeat(10);
    s.submit(cjk);
    let screen = await s.waitFor((now) => /in \d+ \/ out \d+ tokens/.test(now), 'the answer');
    let rows = screenLines(screen).filter((l) => l.includes('漢') && !l.startsWith('›'));
    expect(rows.length, screen).toBeGreaterThan(4);
    for (const row of rows) {
      expect(row.startsWith('  '), screen).toBe(true);
      expect(columnsOf(row), screen).toBeLessThanOrEqual(60);
    }
    const word = `start${'x'.repeat(140)}end`;
    s.submit(word);
    screen = await s.waitFor((now) => /end$/m.test(now) && screenLines(now).filter((l) => l.includes('end')).length >= 2, 'the second answer');
    rows = screenLines(screen).filter((l) => /^ {2}x+(end)?$/.test(l));
    expect(rows.length, screen).toBeGreaterThan(1);
    for (const row of rows) expect(columnsOf(row), screen).toBeLessThanOrEqual(60);
  });

  it('the echo of the prompt wraps at words under its text and never splits a URL', async () => {
    const { s } = ctx.chat({ width: 60 });
    await s.waitForText(READY);
    const url = `https://example.com/docs/${'a'.repeat(70)}?q=1`;
    s.submit(`please read ${url} and tell me what it says about the subject`);
    const screen = await s.waitFor((now) => /in \d+ \/ out \d+ tokens/.test(now), 'the answer');
    const lines = screenLines(screen);
    const echo = lines.findIndex((l) => l.startsWith('› please read'));
    expect(echo, screen).toBeGreaterThan(-1);
    // The URL runs past the width on a line of its own (the terminal soft-wraps it; -J joins it).
    expect(lines[echo + 1], screen).toBe(`  ${url}`);
    expect(lines[echo + 2], screen).toMatch(/^ {2}and tell me/);
  });
});
