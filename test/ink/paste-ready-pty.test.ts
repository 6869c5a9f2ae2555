// A paste the moment the prompt shows is one message (SPEC §8): bracketed paste must already be on
// when the first frame is drawn. Turned on after it, a paste that lands in between arrives as plain
// text, and a quick Enter read with it becomes a line break in the box instead of sending.
import { describe, expect, it } from 'vitest';
import { runInPty, visible } from '../helpers/pty.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const BRACKETED_PASTE_ON = '\u001B[?2004h';

describe('the chat on a terminal', () => {
  it('turns bracketed paste on before it draws the prompt', async () => {
    // Ctrl-D on the empty prompt ends the chat; everything it wrote from its first byte is in `raw`.
    const { code, raw } = await runInPty(['chat', '--base-url', ctx.base, '-m', 'echo', '--no-save'], { env: ctx.user.env(), input: '\u0004' });
    expect(code, visible(raw)).toBe(0);
    const prompt = raw.indexOf('Ask anything');
    expect(prompt, visible(raw)).toBeGreaterThan(-1);
    const on = raw.indexOf(BRACKETED_PASTE_ON);
    expect(on, visible(raw)).toBeGreaterThan(-1);
    expect(on, visible(raw)).toBeLessThan(prompt);
  });
});
