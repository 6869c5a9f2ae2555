// The built binary in a real pseudo-terminal (tmux), against the dev gateway, as a person uses it.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../src/gateway/server.js';
import { shellQuote, TmuxSession, describeInTerminal } from '../helpers/tmux.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'gatechat.js');
const READY = 'Ask anything';

let gateway: Awaited<ReturnType<typeof startGateway>>;
const sessions: TmuxSession[] = [];

function launch(model = 'echo'): TmuxSession {
  const home = mkdtempSync(join(tmpdir(), 'gc-pty-'));
  const command = `${shellQuote(process.execPath)} ${shellQuote(BIN)} chat --base-url ${shellQuote(gateway.url)} -m ${model} --no-save`;
  const session = TmuxSession.start(command, {
    width: 100,
    height: 30,
    env: {
      HOME: home,
      GATECHAT_CONFIG_DIR: join(home, 'config'),
      GATECHAT_DATA_DIR: join(home, 'data'),
      TERM: 'xterm-256color',
      // Ink writes plain appends instead of redrawing when it thinks it runs in CI.
      CI: undefined,
      CONTINUOUS_INTEGRATION: undefined,
      NO_COLOR: undefined,
    },
  });
  sessions.push(session);
  return session;
}

// A key per send-keys call, as typed: text and Enter in one write would be one read.
function submit(session: TmuxSession, text: string): void {
  session.type(text);
  session.keys('Enter');
}


describeInTerminal('interactive chat in a pseudo-terminal', () => {
  beforeAll(async () => {
    gateway = await startGateway({ port: 0 });
  });

  afterEach(() => {
    for (const s of sessions.splice(0)) s.kill();
  });

  afterAll(async () => {
    for (const s of sessions.splice(0)) s.kill();
    await gateway?.close();
  });

  it('streams the answer to a typed prompt, runs /help, and Ctrl-D exits with status 0', async () => {
    const s = launch('echo');
    await s.waitForText(READY);
    submit(s, 'hello from the terminal');
    await s.waitFor((screen) => screen.split('\n').some((line) => line.trim() === 'hello from the terminal'), 'the echoed answer');
    await s.waitForText('in ');
    submit(s, '/help');
    await s.waitForText('/temperature <n|off>');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });

  it('Ctrl-C cancels a slow answer, keeps the partial text marked cancelled, and the chat goes on', async () => {
    const s = launch('echo');
    await s.waitForText(READY);
    submit(s, '/model slow-200');
    await s.waitForText('model: slow-200');
    submit(s, 'tell me a long story');
    await s.waitForText('Lorem ipsum');
    s.keys('C-c');
    const screen = await s.waitForText('cancelled');
    expect(screen).toContain('Lorem');
    expect(s.exitStatus()).toBeNull();
    submit(s, '/model echo');
    await s.waitForText('model: echo');
    submit(s, 'still here?');
    await s.waitFor((text) => text.split('\n').some((line) => line.trim() === 'still here?'), 'the next answer');
  });

  it('keeps a bracketed paste as one message and recalls it with Up', async () => {
    const s = launch('echo');
    await s.waitForText(READY);
    s.paste('first pasted line\nsecond pasted line');
    await s.waitForText('second pasted line');
    s.keys('Enter');
    // One answer holding both lines, its line break kept (SPEC §8: a soft break stays a line break).
    await s.waitFor((text) => /^ {2}first pasted line\n {2}second pasted line$/m.test(text), 'one answer for both lines');
    s.keys('Up');
    await s.waitFor((text) => /│ › first pasted line/.test(text), 'the recalled prompt');
  });

  it('Ctrl-C twice on an empty prompt exits', async () => {
    const s = launch('echo');
    await s.waitForText(READY);
    s.keys('C-c');
    await s.waitForText('press Ctrl-C again to exit');
    s.keys('C-c');
    expect(await s.waitForExit()).toBe(0);
  });
});
