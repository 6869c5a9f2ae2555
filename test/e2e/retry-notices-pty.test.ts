// Retries on a terminal: each notice stays on screen and no spinner line is left behind (SPEC §7, §8).
import { expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

const ctx = useGatewayAndTerminals();
const launch = (args: string[]) => ctx.launch(['--base-url', ctx.base, '--no-save', ...args]);

const retryLines = (screen: string) => screen.split('\n').filter((line) => /retry \d of \d/.test(line));

describeInTerminal('retry notices on a terminal', () => {
  it('one-shot: both notices stay, the spinner leaves no line behind', async () => {
    const s = launch(['-m', 'flaky-2', 'hello after retries']);
    expect(await s.waitForExit(30_000)).toBe(0);
    const screen = s.screen();
    expect(screen).toContain('hello after retries');
    expect(retryLines(screen), screen).toHaveLength(2);
    expect(screen, screen).not.toContain('waiting for the first token');
  });

  it('chat: the notices stay in the transcript and the spinner leaves no line behind', async () => {
    // Failures are counted per exact model name: the gzip variant has its own count.
    const s = launch(['chat', '-m', 'flaky-2+gzip']);
    await s.waitForText('Ask anything');
    s.submit('hello after retries');
    const screen = await s.waitFor((text) => /out \d+ tokens/.test(text), 'the end of the answer', 30_000);
    expect(retryLines(screen), screen).toHaveLength(2);
    expect(screen, screen).not.toContain('waiting for the first token');
  });
});
