// Retries on a terminal: each notice stays on screen and no spinner line is left behind (SPEC §7, §8).
import { afterEach, expect, it } from 'vitest';
import { binPath, shellQuoteArgs } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { describeInTerminal, TmuxSession } from '../helpers/tmux.js';

const ctx = useGatewayAndUser();
const sessions: TmuxSession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

function launch(args: string[]): TmuxSession {
  const session = TmuxSession.start(shellQuoteArgs([process.execPath, binPath, '--base-url', ctx.base, '--no-save', ...args]), {
    width: 100,
    height: 30,
    env: { ...ctx.user.env(), TERM: 'xterm-256color', CI: undefined, CONTINUOUS_INTEGRATION: undefined, NO_COLOR: undefined },
  });
  sessions.push(session);
  return session;
}

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
    s.type('hello after retries');
    s.keys('Enter');
    const screen = await s.waitFor((text) => /out \d+ tokens/.test(text), 'the end of the answer', 30_000);
    expect(retryLines(screen), screen).toHaveLength(2);
    expect(screen, screen).not.toContain('waiting for the first token');
  });
});
