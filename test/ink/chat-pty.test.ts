// The built binary in a real pseudo-terminal (tmux), against the dev gateway, as a person uses it.
import { expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

const READY = 'Ask anything';

describeInTerminal('interactive chat in a pseudo-terminal', () => {
  const ctx = useGatewayAndTerminals();
  const launch = (model: string) => ctx.launch(['chat', '--base-url', ctx.gateway.url, '-m', model, '--no-save']);

  it('streams the answer to a typed prompt, runs /help, and Ctrl-D exits with status 0', async () => {
    // Tall enough for the whole /help listing: in 30 rows its first lines scroll off the screen.
    const s = ctx.launch(['chat', '--base-url', ctx.gateway.url, '-m', 'echo', '--no-save'], { height: 50 });
    await s.waitForText(READY);
    s.submit('hello from the terminal');
    await s.waitFor((screen) => screen.split('\n').some((line) => line.trim() === 'hello from the terminal'), 'the echoed answer');
    await s.waitForText('in ');
    s.submit('/help');
    await s.waitForText('/temperature <n|off>');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });

  it('Ctrl-C cancels a slow answer, keeps the partial text marked cancelled, and the chat goes on', async () => {
    const s = launch('echo');
    await s.waitForText(READY);
    s.submit('/model slow-200');
    await s.waitForText('model: slow-200');
    s.submit('tell me a long story');
    await s.waitForText('Lorem ipsum');
    s.keys('C-c');
    const screen = await s.waitForText('cancelled');
    expect(screen).toContain('Lorem');
    expect(s.exitStatus()).toBeNull();
    s.submit('/model echo');
    await s.waitForText('model: echo');
    s.submit('still here?');
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
