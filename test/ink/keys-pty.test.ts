// SPEC §8 "Holding up", keys people expect: readline word motions, the draft in $EDITOR (Ctrl-G,
// Ctrl-X Ctrl-E), Ctrl-L, Ctrl-Z and fg, Shift+Enter through extended key reporting. Real terminal (tmux).
import { expect, it } from 'vitest';
import { binPath, shellQuoteArgs } from '../helpers/cli.js';
import { describeInTerminal } from '../helpers/tmux.js';
import { expectScrollbackKept, inputLine, pause, READY, screenLines, useChatTerminals, wholeHistory } from './holding-up-kit.js';

const ESC = '\u001B';

describeInTerminal('keys in the chat', () => {
  const ctx = useChatTerminals();

  it('Alt+Backspace, Alt+b and Ctrl+Left stop at punctuation; Ctrl-W deletes back to whitespace', async () => {
    const { s } = ctx.chat();
    await s.waitForText(READY);
    s.type('cp path/to/file-name.txt');
    await s.waitFor((now) => inputLine(now) === 'cp path/to/file-name.txt', 'the typed path');
    s.keys('M-BSpace');
    await s.waitFor((now) => inputLine(now) === 'cp path/to/file-name.', 'txt deleted');
    s.keys('M-BSpace');
    await s.waitFor((now) => inputLine(now) === 'cp path/to/file-', 'name. deleted');
    s.keys('M-b');
    s.type('X');
    await s.waitFor((now) => inputLine(now) === 'cp path/to/Xfile-', 'X before file');
    s.keys('C-Left', 'C-Left');
    s.type('Y');
    await s.waitFor((now) => inputLine(now) === 'cp path/Yto/Xfile-', 'Y before to');
    s.keys('End', 'C-w');
    await s.waitFor((now) => inputLine(now) === 'cp', 'the whole word back to the space deleted');
  });

  it('Ctrl-G and Ctrl-X Ctrl-E open the draft in $EDITOR and bring it back into the box; nothing is sent', async () => {
    const { s } = ctx.chat({ env: { VISUAL: undefined, EDITOR: 'sed -i s/draft/edited/' } });
    await s.waitForText(READY);
    s.type('my draft here');
    await s.waitFor((now) => inputLine(now) === 'my draft here', 'the draft');
    s.keys('C-g');
    await s.waitFor((now) => inputLine(now) === 'my edited here', 'the edited draft');
    s.keys('C-u');
    s.type('second draft');
    await s.waitFor((now) => inputLine(now) === 'second draft', 'the second draft');
    s.keys('C-x', 'C-e');
    await s.waitFor((now) => inputLine(now) === 'second edited', 'the second edited draft');
    await pause(300);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('Ctrl-L puts the live region at the top of the screen; the transcript stays in the scrollback', async () => {
    const { s, raw } = ctx.chat({ height: 30 });
    await s.waitForText(READY);
    s.submit('remember this line');
    await s.waitFor((now) => /in \d+ \/ out \d+ tokens/.test(now), 'the answer');
    s.type('draft');
    s.keys('C-l');
    // The live region's first row is the margin above the box.
    await s.waitFor((now) => screenLines(now).findIndex((l) => l.startsWith('╭')) === 1, 'the input box at the top');
    expect(inputLine(s.screen())).toBe('draft');
    const history = wholeHistory(s);
    expect(history).toContain('gatechat ');
    expect(history).toContain('› remember this line');
    expectScrollbackKept(raw());
  });

  it('Ctrl-Z suspends to the shell and fg brings the chat back, keys working', async () => {
    const s = ctx.open('bash --norc --noprofile -i');
    await s.waitFor((now) => /[$#] *$/m.test(now), 'the shell prompt');
    s.submit(shellQuoteArgs([process.execPath, binPath, 'chat', '--base-url', ctx.base, '-m', 'echo', '--no-save']));
    await s.waitForText(READY);
    s.type('kept draft');
    await s.waitFor((now) => inputLine(now) === 'kept draft', 'the draft');
    s.keys('C-z');
    await s.waitForText('Stopped');
    s.submit('fg');
    await s.waitFor((now) => inputLine(now) === 'kept draft', 'the chat back with its draft');
    s.type(' and more');
    await s.waitFor((now) => inputLine(now) === 'kept draft and more', 'typing after fg');
    s.keys('Enter');
    expect(await ctx.request(1, s)).toBe('kept draft and more');
  });

  it('Shift+Enter adds a line where the terminal reports it once asked (modifyOtherKeys); the mode is restored on exit', async () => {
    const { s, raw } = ctx.chat();
    // tmux passes modified keys on only to a program that asks for them.
    s.tmux('set-option', '-s', 'extended-keys', 'on');
    await s.waitForText(READY);
    s.type('line one');
    s.keys('S-Enter');
    s.type('line two');
    await s.waitFor((now) => now.includes('line two'), 'the second line');
    await pause(200);
    expect(ctx.gateway.requests).toHaveLength(0);
    s.keys('Enter');
    expect(await ctx.request(1, s)).toBe('line one\nline two');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
    const bytes = raw();
    expect(bytes).toContain(`${ESC}[>4;1m`);
    // Back to the terminal's own setting.
    expect(bytes.lastIndexOf(`${ESC}[>4m`)).toBeGreaterThan(bytes.lastIndexOf(`${ESC}[>4;1m`));
  });
});
