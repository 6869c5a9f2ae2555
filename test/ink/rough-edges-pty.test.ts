// The chat's rough edges in a real terminal (tmux): /edit with a real $EDITOR, keys typed in one burst.
import { expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

const READY = 'Ask anything';

const answerLine = (screen: string, text: string) => screen.split('\n').some((line) => line === `  ${text}`);

describeInTerminal('chat rough edges in a terminal', () => {
  const ctx = useGatewayAndTerminals();
  const launch = (editor: string) =>
    ctx.launch(['chat', '--base-url', ctx.gateway.url, '-m', 'echo', '--no-save'], { env: { VISUAL: undefined, EDITOR: editor } });

  it('/edit brings the edited text back into the input box; only Enter sends it', async () => {
    const s = launch('sed -i s/draft/edited/');
    await s.waitForText(READY);
    s.submit('/edit draft prompt');
    await s.waitForText('│ › edited prompt');
    await new Promise((r) => setTimeout(r, 300));
    expect(ctx.gateway.requests).toHaveLength(0);
    s.keys('Enter');
    await s.waitFor((screen) => answerLine(screen, 'edited prompt'), 'the answer');
    expect(ctx.gateway.requests).toHaveLength(1);
  });

  it('/edit left without saving (the editor changes nothing) sends nothing', async () => {
    const s = launch('true');
    await s.waitForText(READY);
    s.submit('/edit keep me');
    await s.waitForText('│ › keep me');
    await new Promise((r) => setTimeout(r, 300));
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('"line1\\" Enter "line2" Enter sent in one burst is one two-line prompt', async () => {
    const s = launch('true');
    await s.waitForText(READY);
    s.keys('line1\\', 'Enter', 'line2', 'Enter');
    await s.waitFor((screen) => answerLine(screen, 'line1') && answerLine(screen, 'line2'), 'the two-line answer');
    expect(s.screen()).not.toContain('line1\\');
  });
});
