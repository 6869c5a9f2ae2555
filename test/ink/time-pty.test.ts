// SPEC §8 "Holding up", time and state: while an answer streams the status line shows this turn's
// tokens and a counter that ticks through silence; Ctrl-C's exit arming expires. Real terminal (tmux).
import { expect, it } from 'vitest';
import { describeInTerminal } from '../helpers/tmux.js';
import { READY, useChatTerminals } from './holding-up-kit.js';

describeInTerminal('time and state in the chat', () => {
  const ctx = useChatTerminals();

  it('a stalled stream shows this turn\'s tokens and "waiting N s" that keeps ticking', async () => {
    const { s } = ctx.chat({ model: 'lorem-40' });
    await s.waitForText(READY);
    s.submit('first');
    const before = await s.waitFor((now) => /in \d+ \/ out 40 tokens/.test(now), 'the first answer');
    expect(before).toContain('out 40 tokens');
    s.submit('/model stall-after-5');
    await s.waitForText('model: stall-after-5');
    s.submit('second');
    const waiting = await s.waitFor((now) => /\b5 tokens · waiting \d+ s/.test(now), 'the waiting counter', 20_000);
    // The previous turn's figures are not what the status line shows now.
    expect(waiting).not.toContain('out 40 tokens');
    const first = Number(/waiting (\d+) s/.exec(waiting)![1]);
    expect(first).toBeGreaterThanOrEqual(3);
    await s.waitFor((now) => Number(/waiting (\d+) s/.exec(now)?.[1] ?? 0) > first, 'the counter to tick', 20_000);
    s.keys('Escape');
    await s.waitForText('cancelled');
  });

  it('Ctrl-C on an empty prompt arms exit for a while, then disarms: a later Ctrl-C arms again', async () => {
    const { s } = ctx.chat();
    await s.waitForText(READY);
    s.keys('C-c');
    await s.waitForText('press Ctrl-C again to exit');
    await s.waitFor((now) => !now.includes('press Ctrl-C again to exit'), 'the arming to expire', 15_000);
    s.keys('C-c');
    await s.waitForText('press Ctrl-C again to exit');
    expect(s.exitStatus()).toBeNull();
    s.keys('C-c');
    expect(await s.waitForExit()).toBe(0);
  });
});
