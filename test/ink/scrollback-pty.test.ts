// SPEC §8: gatechat never erases the terminal's scrollback — checked on the raw bytes it writes.
import { expect, it } from 'vitest';
import { join } from 'node:path';
import { visible } from '../helpers/pty.js';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

const READY = 'Ask anything';
const ESC = '\u001B';

function expectScrollbackKept(raw: string) {
  expect(raw, visible(raw)).not.toContain(`${ESC}[3J`);
  expect(raw, visible(raw)).not.toContain(`${ESC}[2J`);
  // ESC c (full reset) clears the scrollback in most terminals too.
  expect(raw, visible(raw)).not.toContain(`${ESC}c`);
}

describeInTerminal('scrollback is never erased', () => {
  const ctx = useGatewayAndTerminals();

  /** Chat in a width×height tmux window, every byte it writes recorded; returns the session and a reader. */
  function launch(options: { width?: number; height?: number } = {}) {
    const session = ctx.launch(['chat', '--base-url', ctx.gateway.url, '-m', 'echo', '--no-save'], { height: 40, ...options });
    return { session, raw: session.record(join(ctx.user.home, 'raw.bin')) };
  }

  it('a pasted 60-line input in a 40-row window', async () => {
    const { session: s, raw } = launch({ height: 40 });
    await s.waitForText(READY);
    const lines = Array.from({ length: 60 }, (_, i) => `pasted line ${i + 1}`);
    s.paste(lines.join('\n'));
    // More than 10 lines: one chip in the box (SPEC §8), the whole text sent.
    await s.waitForText('[pasted #1 · ');
    s.keys('Enter');
    await s.waitFor((screen) => /in \d+ \/ out \d+ tokens/.test(screen), 'the end of the answer');
    expectScrollbackKept(raw());
  });

  it('/clear starts a new conversation below the old one', async () => {
    const { session: s, raw } = launch();
    await s.waitForText(READY);
    s.submit('before the clear');
    await s.waitFor((screen) => screen.split('\n').some((l) => l.trim() === 'before the clear'), 'the answer');
    s.submit('/clear');
    // The status line forgets the last answer's tokens once the new conversation is drawn.
    await s.waitFor((screen) => screen.includes(READY) && !/out \d+ tokens/.test(screen), 'the new conversation');
    expectScrollbackKept(raw());
    expect(s.screen()).toContain('before the clear');
  });

  it('resizing the window', async () => {
    const { session: s, raw } = launch({ width: 100, height: 30 });
    await s.waitForText(READY);
    s.submit('a line before the resize');
    await s.waitFor((screen) => screen.split('\n').some((l) => l.trim() === 'a line before the resize'), 'the answer');
    s.resize(60, 30);
    await new Promise((r) => setTimeout(r, 400));
    s.resize(90, 25);
    s.type('after');
    await s.waitForText('› after');
    await new Promise((r) => setTimeout(r, 400));
    expectScrollbackKept(raw());
  });
});
