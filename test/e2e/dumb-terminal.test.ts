// SPEC §8: TERM=dumb means no cursor movement at all — no spinner, no live region, no synchronized
// output; text is printed as it arrives. Checked on the raw bytes written to a real pty.
import { expect, it } from 'vitest';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInPty, visible } from '../helpers/pty.js';
import { runCli } from '../helpers/cli.js';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

const ESC = '\u001B';
const ctx = useGatewayAndTerminals();

/** The binary in tmux with TERM=dumb, every byte it writes recorded. */
function launchDumb(args: string[]) {
  const session = ctx.launch(args, { width: 80, height: 24, env: { TERM: 'dumb' } });
  return { session, raw: session.record(join(ctx.user.home, 'raw.bin')) };
}

describeInTerminal('TERM=dumb', () => {
  it('one-shot prints plain text with no escape codes at all, and keeps the answer safe', async () => {
    const { code, raw } = await runInPty(['--base-url', ctx.base, '-m', 'echo', `plain answer${ESC}]2;PWNED${ESC}\\ here`], {
      env: { ...ctx.user.env(), TERM: 'dumb' },
    });
    expect(code, visible(raw)).toBe(0);
    expect(raw).toContain('plain answer here');
    expect(raw, visible(raw)).not.toContain(ESC);
    expect(raw).not.toContain('PWNED');
  });

  it('one-shot streams the answer as it arrives (the first words show while the rest is coming)', async () => {
    const { session: s, raw } = launchDumb(['--base-url', ctx.base, '-m', 'slow-150', '--max-tokens', '30', 'go']);
    await s.waitForText('Lorem');
    expect(s.exitStatus()).toBeNull();
    expect(await s.waitForExit(20_000)).toBe(0);
    expect(raw(), visible(raw())).not.toContain(ESC);
  });

  it('chat is a plain line-by-line conversation: prompts in, answers out, no escape codes; Ctrl-D leaves', async () => {
    const { session: s, raw } = launchDumb(['chat', '--base-url', ctx.base, '-m', 'echo', '--no-save']);
    await s.waitForText('/help');
    s.submit('hello dumb terminal');
    await s.waitFor((screen) => screen.split('\n').some((line) => line.trim() === 'hello dumb terminal'), 'the answer line');
    s.submit('/model lorem-3');
    await s.waitForText('model: lorem-3');
    s.submit('more');
    await s.waitForText('Lorem ipsum dolor');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
    expect(raw(), visible(raw())).not.toContain(ESC);
  });

  it('chat: /retry -m asks another model the last prompt again; both answers are saved, the newest continued (SPEC §17)', async () => {
    const { session: s } = launchDumb(['chat', '--base-url', ctx.base, '-m', 'echo', '--title', 'second opinions']);
    await s.waitForText('/help');
    s.submit('which is better?');
    await s.waitFor((screen) => screen.split('\n').some((line) => line.trim() === 'which is better?'), 'the answer line');
    s.submit('/retry -m lorem-3');
    await s.waitForText('Lorem ipsum dolor');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
    const shown = await runCli(['history', 'show'], { env: ctx.user.env() });
    expect(shown.stdout).toMatch(/> which is better\?\n\n\[answer 1 of 2 · echo\]\nwhich is better\?\n\n\[answer 2 of 2 · lorem-3 · the one continued\]\nLorem ipsum dolor/);
    expect((await runCli(['history', 'list'], { env: ctx.user.env() })).stdout).toMatch(/2 turns\s+echo\s+second opinions\n$/);
  });

  it('chat: /compact summarises the turns so far; the next prompt sends the summary in their place (SPEC §17)', async () => {
    const { session: s, raw } = launchDumb(['chat', '--base-url', ctx.base, '-m', 'echo']);
    await s.waitForText('/help');
    s.submit('remember the kite');
    await s.waitFor(() => ctx.gateway.requests.length === 1, 'the first request');
    s.submit('/compact keep the kite');
    await s.waitForText('compacted turn 1');
    expect((ctx.gateway.requests[1]!.body as any).messages.at(-1).content).toMatch(/^Summarise the conversation so far[\s\S]*keep the kite$/);
    s.submit('and now?');
    await s.waitFor(() => ctx.gateway.requests.length === 3, 'the third request');
    const sent = (ctx.gateway.requests[2]!.body as any).messages;
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/^Summary of the earlier conversation: Summarise/) });
    expect(sent[1]).toEqual({ role: 'user', content: 'and now?' });
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
    expect(raw(), visible(raw())).not.toContain(ESC);
    const shown = await runCli(['history', 'show'], { env: ctx.user.env() });
    expect(shown.stdout).toMatch(/> remember the kite\n\nremember the kite\n\n\[summary of turn 1 · echo · sent in their place\]\nSummarise[\s\S]*\n> and now\?/);
  });

  it('chat: /attach adds a file to the next message only; -a goes with the first', async () => {
    const notes = join(ctx.user.home, 'notes.txt');
    writeFileSync(notes, 'from the notes\n');
    const first = join(ctx.user.home, 'first.txt');
    writeFileSync(first, 'first file\n');
    const { session: s } = launchDumb(['chat', '--base-url', ctx.base, '-m', 'echo', '--no-save', '-a', first]);
    await s.waitForText('/help');
    s.submit('one');
    await s.waitFor(() => ctx.gateway.requests.length === 1, 'the first request');
    expect((ctx.gateway.requests[0].body as any).messages.at(-1).content).toBe(`${first}\n\`\`\`\nfirst file\n\`\`\`\n\none`);
    s.submit(`/attach ${notes}`);
    await s.waitForText('attached to the next message');
    s.submit('two');
    await s.waitFor(() => ctx.gateway.requests.length === 2, 'the second request');
    expect((ctx.gateway.requests[1].body as any).messages.at(-1).content).toBe(`${notes}\n\`\`\`\nfrom the notes\n\`\`\`\n\ntwo`);
    s.submit('three');
    await s.waitFor(() => ctx.gateway.requests.length === 3, 'the third request');
    expect((ctx.gateway.requests[2].body as any).messages.at(-1).content).toBe('three');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });

  it('chat: Ctrl-C cancels a streaming answer and the chat goes on; Ctrl-C twice at the prompt exits', async () => {
    const { session: s, raw } = launchDumb(['chat', '--base-url', ctx.base, '-m', 'slow-100', '--no-save']);
    await s.waitForText('/help');
    s.submit('tell me a long story');
    await s.waitForText('Lorem ipsum');
    s.keys('C-c');
    await s.waitForText('⊘ cancelled');
    s.submit('/model echo');
    await s.waitForText('model: echo');
    s.submit('still here');
    await s.waitFor((screen) => screen.split('\n').some((line) => line.trim() === 'still here'), 'the next answer');
    s.keys('C-c');
    await s.waitForText('press Ctrl-C again to exit');
    s.keys('C-c');
    expect(await s.waitForExit()).toBe(0);
    expect(raw(), visible(raw())).not.toContain(ESC);
  });

  it('chat runs tools too: each call asked about on a line (y runs it, n denies it), Ctrl-C during a question cancels the turn, the next prompt is not lost', async () => {
    const dir = join(ctx.user.home, 'dumb-runs');
    const tools = join(ctx.user.home, 'dumb-tools.json');
    writeFileSync(tools, JSON.stringify([{ type: 'function', function: { name: 'shout', parameters: { type: 'object' } }, 'x-command': `mkdir -p ${dir}; touch ${dir}/$$; printf 'ran it'` }]));
    const runs = () => (existsSync(dir) ? readdirSync(dir).length : 0);
    const { session: s, raw } = launchDumb(['chat', '--base-url', ctx.base, '-m', 'agent', '--no-save', '--tools', tools]);
    await s.waitForText('/help');
    s.submit('call shout {"text":"one"}');
    await s.waitForText('y run once');
    expect(s.screen()).toContain('⚙ shout (command) {"text":"one"}');
    expect(runs()).toBe(0);
    s.submit('y');
    await s.waitForText('results: ran it');
    expect(runs()).toBe(1);
    s.submit('call shout {"text":"two"}');
    await s.waitFor((screen) => screen.includes('"two"') && screen.split('y run once').length === 3, 'the second question');
    s.submit('n');
    await s.waitForText('results: The user declined to run this tool call.');
    expect(runs()).toBe(1);
    s.submit('call shout {"text":"three"}');
    await s.waitFor((screen) => screen.includes('"three"') && screen.split('y run once').length === 4, 'the third question');
    s.keys('C-c');
    await s.waitForText('⊘ cancelled');
    s.submit('/model echo');
    await s.waitForText('model: echo');
    expect(runs()).toBe(1);
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
    expect(raw(), visible(raw())).not.toContain(ESC);
  });
});
