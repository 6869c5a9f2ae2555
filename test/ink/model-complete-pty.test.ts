// /model Tab completion and /models in the real chat UI (tmux): aliases from the config at once,
// the gateway's ids once the list (fetched in the background on the first Tab) has arrived.
import { beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('/model completion in chat', () => {
  const ctx = useGatewayAndTerminals({ userPer: 'file' });
  beforeAll(async () => {
    expect((await runCli(['config', 'set', '--model', 'critic', 'model', 'echo'], { env: ctx.user.env() })).code).toBe(0);
  });

  it('Tab completes an alias and a gateway id after /model; /model ALIAS switches to its id; /models lists them', async () => {
    const s = ctx.launch(['chat', '--base-url', ctx.base, '-m', 'lorem-3', '--no-save']);
    await s.waitForText('Ask anything');
    s.type('/model cri');
    await s.waitForText('/model cri');
    s.keys('Tab');
    await s.waitForText('/model critic ');
    s.keys('Enter');
    await s.waitForText('model: echo (alias critic)');
    // The first Tab after /model started fetching the list in the background (no cache yet).
    const deadline = Date.now() + 5000;
    while (!ctx.gateway.requests.some((r) => r.path === '/v1/models') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    s.type('/model max-comp');
    await s.waitForText('/model max-comp');
    s.keys('Tab');
    await s.waitForText('/model max-completion-tokens ');
    s.keys('C-u');
    s.submit('/models fail-4');
    const screen = await s.waitForText('fail-429-120');
    expect(screen).toContain('fail-401');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });
});
