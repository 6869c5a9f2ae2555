// SPEC §8 "Holding up", commands: /max-tokens, @path, path completion, the first Tab after /model,
// /model with an unlisted id, /save that asks, the line on leaving, /help on a dumb terminal, hints
// that name chat commands. Real terminal (tmux) against the dev gateway.
import { expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeInTerminal } from '../helpers/tmux.js';
import { inputLine, pause, READY, useChatTerminals } from './holding-up-kit.js';

const done = (screen: string) => /in \d+ \/ out \d+ tokens/.test(screen);

describeInTerminal('commands in the chat', () => {
  const ctx = useChatTerminals();
  /** A working directory with a text file, a directory and a Markdown file. */
  function workdir(): string {
    const dir = join(ctx.user.home, 'work');
    mkdirSync(join(dir, 'docs'), { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'from the notes\n');
    writeFileSync(join(dir, 'docs', 'guide.md'), '# guide\n');
    return dir;
  }

  it('/max-tokens N limits the next answers; off clears it', async () => {
    const { s } = ctx.chat();
    await s.waitForText(READY);
    s.submit('/max-tokens 7');
    await s.waitForText('max tokens: 7');
    s.submit('one');
    await ctx.request(1, s);
    expect(ctx.gateway.requests[0]!.body).toMatchObject({ max_tokens: 7 });
    await s.waitFor(done, 'the answer');
    s.submit('/max-tokens off');
    await s.waitForText('max tokens: off');
    s.submit('two');
    await ctx.request(2, s);
    expect(ctx.gateway.requests[1]!.body).not.toHaveProperty('max_tokens');
  });

  it('@path attaches the file (Tab completes it), \\@ is a literal @, and a missing path sends nothing', async () => {
    const { s } = ctx.chat({ cwd: workdir() });
    await s.waitForText(READY);
    s.type('sum @no');
    s.keys('Tab');
    await s.waitFor((now) => inputLine(now) === 'sum @notes.txt', 'the completed path');
    s.type('please');
    s.keys('Enter');
    const content = (await ctx.request(1, s)) as string;
    expect(content).toContain('from the notes');
    expect(content.endsWith('sum @notes.txt please')).toBe(true);
    await s.waitFor(done, 'the first answer');
    s.type('@do');
    s.keys('Tab');
    await s.waitFor((now) => inputLine(now) === '@docs/', 'the completed directory');
    s.keys('C-u');
    s.submit('mail me \\@notes.txt');
    expect(await ctx.request(2, s)).toBe('mail me @notes.txt');
    await s.waitFor((now) => now.split('\n').some((l) => l === '  mail me @notes.txt'), 'the second answer');
    s.submit('read @missing.txt');
    await s.waitForText('missing.txt');
    await s.waitFor((now) => inputLine(now) === 'read @missing.txt', 'the draft back in the box');
    await pause(300);
    expect(ctx.gateway.requests).toHaveLength(2);
  });

  it('Tab completes paths after /attach and /save', async () => {
    const { s } = ctx.chat({ cwd: workdir() });
    await s.waitForText(READY);
    s.type('/attach not');
    s.keys('Tab');
    await s.waitFor((now) => inputLine(now) === '/attach notes.txt', 'the /attach path');
    s.keys('C-u');
    s.type('/save docs/gu');
    s.keys('Tab');
    await s.waitFor((now) => inputLine(now) === '/save docs/guide.md', 'the /save path');
  });

  it('the first Tab after "/model " in a fresh data dir fetches and lists the models', async () => {
    const { s } = ctx.chat();
    await s.waitForText(READY);
    s.type('/model ');
    s.keys('Tab');
    await s.waitFor((now) => /echo\s+lorem-\d+[\s\S]*… \d+ more/.test(now), 'the listed models');
    expect(ctx.gateway.requests.some((r) => r.path === '/v1/models')).toBe(true);
  });

  it('/model warns about an id the gateway does not list and still switches; /model /exit is refused', async () => {
    const { s } = ctx.chat();
    await s.waitForText(READY);
    s.submit('/model /exit');
    await s.waitForText('is a command');
    expect(s.exitStatus()).toBeNull();
    s.submit('/model');
    await s.waitForText('model echo ·');
    s.submit('/model no-such-model');
    await s.waitForText('model: no-such-model');
    await s.waitForText('not in the gateway');
  });

  it('/save refuses an empty conversation, asks before overwriting, and /save! overwrites', async () => {
    const dir = workdir();
    const { s } = ctx.chat({ cwd: dir });
    await s.waitForText(READY);
    s.submit('/save out.md');
    await s.waitForText('nothing to save');
    s.submit('hello');
    await s.waitFor(done, 'the answer');
    s.submit('/save out.md');
    await s.waitForText('saved 1 turn');
    writeFileSync(join(dir, 'out.md'), 'mine\n');
    s.submit('/save out.md');
    await s.waitForText('out.md exists');
    await s.waitFor((now) => inputLine(now) === '/save! out.md', 'the overwrite offered in the box');
    expect(readFileSync(join(dir, 'out.md'), 'utf8')).toBe('mine\n');
    s.keys('Enter');
    await s.waitFor(() => readFileSync(join(dir, 'out.md'), 'utf8').includes('hello'), 'the file overwritten');
  });

  it('leaving a saved chat prints its turns, tokens and how to resume it', async () => {
    const { s } = ctx.chat({ save: true });
    await s.waitForText(READY);
    s.submit('keep me');
    await s.waitFor(done, 'the answer');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
    const screen = s.screen();
    expect(screen).toMatch(/1 turn · in \d+ \/ out \d+ tokens · resume: gatechat -c or gatechat --cid \S+/);
  });

  it('an in-chat 404 hint names /models; an unknown /word says // sends it as text', async () => {
    const { s } = ctx.chat({ model: 'fail-404' });
    await s.waitForText(READY);
    s.submit('hi');
    const screen = await s.waitForText('failed');
    expect(screen).toContain('/models');
    expect(screen).not.toContain('gatechat models');
    s.submit('/frobnicate');
    await s.waitForText('//frobnicate sends it as text');
  });

  it('with TERM=dumb, /help lists only the keys line mode honours', async () => {
    const { s } = ctx.chat({ env: { TERM: 'dumb' } });
    await s.waitForText('/help');
    s.submit('/help');
    const screen = await s.waitForText('/temperature');
    for (const key of ['Alt+Enter', 'Up/Down', 'Tab', 'Ctrl-R', 'Esc']) expect(screen).not.toContain(key);
    expect(screen).toContain('Ctrl-D');
  });
});
