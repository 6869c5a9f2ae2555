// /model Tab completion and /models in the real chat UI (tmux): aliases from the config at once,
// the gateway's ids once the list (fetched in the background on the first Tab) has arrived.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/server.js';
import { binPath, makeUserDirs, runCli } from '../helpers/cli.js';
import { describeInTerminal, shellQuote, TmuxSession } from '../helpers/tmux.js';

let gateway: Awaited<ReturnType<typeof startGateway>>;
const user = makeUserDirs();
const sessions: TmuxSession[] = [];

describeInTerminal('/model completion in chat', () => {
  beforeAll(async () => {
    gateway = await startGateway({ port: 0 });
    expect((await runCli(['config', 'set', '--model', 'critic', 'model', 'echo'], { env: user.env() })).code).toBe(0);
  });
  afterAll(async () => {
    for (const s of sessions.splice(0)) s.kill();
    await gateway?.close();
    user.cleanup();
  });

  it('Tab completes an alias and a gateway id after /model; /model ALIAS switches to its id; /models lists them', async () => {
    const command = `${shellQuote(process.execPath)} ${shellQuote(binPath)} chat --base-url ${shellQuote(`${gateway.url}/v1`)} -m lorem-3 --no-save`;
    const s = TmuxSession.start(command, { width: 100, height: 30, env: { ...user.env(), TERM: 'xterm-256color', CI: undefined, CONTINUOUS_INTEGRATION: undefined } });
    sessions.push(s);
    await s.waitForText('Ask anything');
    s.type('/model cri');
    await s.waitForText('/model cri');
    s.keys('Tab');
    await s.waitForText('/model critic ');
    s.keys('Enter');
    await s.waitForText('model: echo (alias critic)');
    // The first Tab after /model started fetching the list in the background (no cache yet).
    const deadline = Date.now() + 5000;
    while (!gateway.requests.some((r) => r.path === '/v1/models') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    s.type('/model max-comp');
    await s.waitForText('/model max-comp');
    s.keys('Tab');
    await s.waitForText('/model max-completion-tokens ');
    s.keys('C-u');
    s.type('/models fail-4');
    s.keys('Enter');
    const screen = await s.waitForText('fail-429-120');
    expect(screen).toContain('fail-401');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });
});
