// SPEC §8 "Holding up", Markdown: table alignment, block quotes with a bar, wrapped list items under
// their text, highlighted code keeping its colour on wrapped rows, NO_COLOR keeping bold and italic.
// The echo model answers the pasted Markdown back; the real terminal (tmux) shows how it was drawn.
import { expect, it } from 'vitest';
import { describeInTerminal } from '../helpers/tmux.js';
import { READY, screenLines, styledScreen, useChatTerminals } from './holding-up-kit.js';

const ESC = '\u001B';
// The status line is cut at the window's width: its start is enough.
const done = (screen: string) => /in \d+ \/ out \d+/.test(screen);

describeInTerminal('Markdown in the chat', () => {
  const ctx = useChatTerminals();

  async function answer(markdown: string, options: { width?: number; env?: Record<string, string | undefined> } = {}) {
    const { s } = ctx.chat({ width: options.width ?? 80, env: options.env });
    await s.waitForText(READY);
    s.paste(markdown);
    await new Promise((r) => setTimeout(r, 200));
    s.keys('Enter');
    const screen = await s.waitFor(done, 'the answer');
    return { s, screen, lines: screenLines(screen) };
  }

  it('a right-aligned table column is drawn right-aligned, a centred one centred', async () => {
    const { lines, screen } = await answer('| name | count | mid |\n|:-----|------:|:---:|\n| apples | 1 | x |\n| pears | 1000 | xyz |');
    const apples = lines.find((l) => l.includes('│ apples'))!;
    const pears = lines.find((l) => l.includes('│ pears'))!;
    expect(apples, screen).toBeDefined();
    // The counts end in the same column.
    expect(apples.indexOf('1 │'), screen).toBe(pears.indexOf('1000 │') + 3);
    expect(apples.indexOf(' x '), screen).toBe(pears.indexOf('xyz'));
  });

  it('a block quote has a bar', async () => {
    const { lines, screen } = await answer('> quoted words here\n> and more\n\nafter');
    expect(lines.some((l) => /^ {2}│ quoted words here$/.test(l)), screen).toBe(true);
    expect(lines.some((l) => /^ {2}│ and more$/.test(l)), screen).toBe(true);
  });

  it('a wrapped list item continues under its text', async () => {
    const item = Array.from({ length: 24 }, (_, i) => `word${i}`).join(' ');
    const { lines, screen } = await answer(`- ${item}\n- short`, { width: 50 });
    const first = lines.findLastIndex((l) => /[*•-] word0 /.test(l));
    expect(first, screen).toBeGreaterThan(-1);
    const textColumn = lines[first]!.indexOf('word0');
    const next = lines[first + 1]!;
    expect(next.search(/\S/), screen).toBe(textColumn);
  });

  it('a wrapped line of highlighted code keeps its colour', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const { s, lines, screen } = await answer(`\`\`\`js\nconst text = "${words}";\n\`\`\``, { width: 60 });
    // The answer's code row (the prompt's echo above it has the same text).
    const first = lines.findLastIndex((l) => l.includes('const text'));
    expect(first, screen).toBeGreaterThan(-1);
    expect(lines[first + 1], screen).toMatch(/^\s+w\d+/);
    const styled = screenLines(styledScreen(s));
    const firstRow = styled[first]!;
    const row = styled[first + 1]!;
    // A foreground colour is set before the row's first word, the one its first row's string has.
    const colour = (text: string) => /\u001B\[(?:[0-9;]*;)?((?:3[0-7]|9[0-7]|38;[0-9;]+))m[^\u001B]*$/.exec(text)?.[1];
    const opened = colour(firstRow.slice(0, firstRow.indexOf('"w0')));
    expect(opened, JSON.stringify(firstRow)).toBeDefined();
    expect(colour(row.slice(0, row.indexOf('w'))), JSON.stringify(row)).toBe(opened);
  });

  it('NO_COLOR keeps bold, italic and underline, and draws no colour', async () => {
    const { s, screen } = await answer('plain **strong words** then *slanted words* end', { env: { NO_COLOR: '1' } });
    expect(screen).toContain('strong words');
    const styled = styledScreen(s);
    const line = screenLines(styled).find((l) => l.includes('slanted') && !l.includes('**'))!;
    // An SGR sequence whose parameters include `n`.
    const sgrWith = (n: string) => `${ESC}\\[(?:[0-9;]*;)?(?:${n})(?:;[0-9;]*)?m`;
    expect(line, JSON.stringify(styled)).toMatch(new RegExp(`${sgrWith('1')}strong words`));
    expect(line, JSON.stringify(line)).toMatch(new RegExp(`${sgrWith('3')}slanted words`));
    expect(line, JSON.stringify(line)).not.toMatch(new RegExp(sgrWith('3[0-8]|9[0-7]')));
  });
});
