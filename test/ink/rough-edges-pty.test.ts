// The chat's rough edges in a real terminal (tmux): /edit with a real $EDITOR, keys typed in one burst.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../src/gateway/server.js';
import { binPath, shellQuoteArgs } from '../helpers/cli.js';
import { describeInTerminal, TmuxSession } from '../helpers/tmux.js';

const READY = 'Ask anything';
let gateway: Awaited<ReturnType<typeof startGateway>>;
const sessions: TmuxSession[] = [];

function launch(editor: string): TmuxSession {
  const home = mkdtempSync(join(tmpdir(), 'gc-edges-'));
  const session = TmuxSession.start(shellQuoteArgs([process.execPath, binPath, 'chat', '--base-url', gateway.url, '-m', 'echo', '--no-save']), {
    width: 100,
    height: 30,
    env: {
      HOME: home, GATECHAT_CONFIG_DIR: join(home, 'config'), GATECHAT_DATA_DIR: join(home, 'data'),
      TERM: 'xterm-256color', CI: undefined, CONTINUOUS_INTEGRATION: undefined, NO_COLOR: undefined,
      VISUAL: undefined, EDITOR: editor,
    },
  });
  sessions.push(session);
  return session;
}

const answerLine = (screen: string, text: string) => screen.split('\n').some((line) => line === `  ${text}`);

describeInTerminal('chat rough edges in a terminal', () => {
  beforeAll(async () => {
    gateway = await startGateway({ port: 0 });
  });
  afterEach(() => {
    for (const s of sessions.splice(0)) s.kill();
    gateway.requests.length = 0;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('/edit brings the edited text back into the input box; only Enter sends it', async () => {
    const s = launch('sed -i s/draft/edited/');
    await s.waitForText(READY);
    s.type('/edit draft prompt');
    s.keys('Enter');
    await s.waitForText('│ › edited prompt');
    await new Promise((r) => setTimeout(r, 300));
    expect(gateway.requests).toHaveLength(0);
    s.keys('Enter');
    await s.waitFor((screen) => answerLine(screen, 'edited prompt'), 'the answer');
    expect(gateway.requests).toHaveLength(1);
  });

  it('/edit left without saving (the editor changes nothing) sends nothing', async () => {
    const s = launch('true');
    await s.waitForText(READY);
    s.type('/edit keep me');
    s.keys('Enter');
    await s.waitForText('│ › keep me');
    await new Promise((r) => setTimeout(r, 300));
    expect(gateway.requests).toHaveLength(0);
  });

  it('"line1\\" Enter "line2" Enter sent in one burst is one two-line prompt', async () => {
    const s = launch('true');
    await s.waitForText(READY);
    s.keys('line1\\', 'Enter', 'line2', 'Enter');
    await s.waitFor((screen) => answerLine(screen, 'line1') && answerLine(screen, 'line2'), 'the two-line answer');
    expect(s.screen()).not.toContain('line1\\');
  });
});
