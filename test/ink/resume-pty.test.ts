// The built binary's chat in a real pseudo-terminal (tmux) against the dev gateway: a resumed chat
// shows what it continues and sends with the conversation's settings; an unsaved chat leaves no
// trace on disk.
import { expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeUserDirs, runCli } from '../helpers/cli.js';
import { describeInTerminal, useGatewayAndTerminals, type TmuxSession } from '../helpers/tmux.js';

const READY = 'Ask anything';

const ctx = useGatewayAndTerminals();
const chat = (args: string[]) => ctx.launch(['chat', '--base-url', ctx.base, ...args]);

/** Sends a prompt to `echo` and waits for the request and the answer on screen. */
async function exchange(s: TmuxSession, prompt: string, requests: number): Promise<void> {
  s.submit(prompt);
  const deadline = Date.now() + 10_000;
  while (ctx.gateway.requests.length < requests) {
    if (Date.now() > deadline) throw new Error(`no request for ${JSON.stringify(prompt)}; screen:\n${s.screen()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await s.waitFor((screen) => screen.split('\n').some((line) => line.trim() === prompt), `the answer to ${prompt}`);
}

const historyFile = () => join(ctx.user.dataDir, 'input-history.jsonl');

describeInTerminal('chat in a pseudo-terminal: resume and --no-save', () => {
  it('chat -c prints the earlier turns before the prompt and continues with the conversation settings', async () => {
    const first = await runCli(['--base-url', ctx.base, '-m', 'lorem-3', '--api', 'messages', '-s', 'be brief', '--json', 'the first question'], { env: ctx.user.env() });
    expect(first.code, first.stderr).toBe(0);
    const { text, cid } = JSON.parse(first.stdout) as { text: string; cid: string };
    ctx.gateway.requests.length = 0;

    const s = chat(['-c']);
    const screen = await s.waitForText(READY);
    const lines = screen.split('\n');
    const asked = lines.findIndex((line) => line.includes('› the first question'));
    const answered = lines.findIndex((line) => line.includes(text.trim()));
    const box = lines.findIndex((line) => line.includes(READY));
    expect(asked, screen).toBeGreaterThan(-1);
    expect(answered, screen).toBeGreaterThan(asked);
    expect(box, screen).toBeGreaterThan(answered);
    expect(screen).toContain(`continuing ${cid}`);
    expect(screen).toContain('lorem-3 · messages');

    s.submit('and then?');
    // lorem-3 answers the same words again: the second copy on screen is the new answer.
    await s.waitFor((now) => now.split(text.trim()).length === 3, 'the new answer');
    expect(ctx.gateway.requests).toHaveLength(1);
    const request = ctx.gateway.requests[0]!;
    expect(request.path).toBe('/v1/messages');
    expect(request.body).toMatchObject({
      model: 'lorem-3',
      system: 'be brief',
      messages: [
        { role: 'user', content: 'the first question' },
        { role: 'assistant', content: text },
        { role: 'user', content: 'and then?' },
      ],
    });
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });

  it('--cid with -m: the flag wins, the past is still shown', async () => {
    const first = await runCli(['--base-url', ctx.base, '-m', 'echo', '--json', 'remember me'], { env: ctx.user.env() });
    const { cid } = JSON.parse(first.stdout) as { cid: string };
    ctx.gateway.requests.length = 0;
    const s = chat(['--cid', cid, '-m', 'lorem-2']);
    await s.waitForText(READY);
    expect(s.screen()).toContain('› remember me');
    await s.waitFor((screen) => screen.split('\n').filter((line) => line.trim() === 'remember me').length === 1, 'the earlier answer');
    s.submit('go on');
    await s.waitFor(() => ctx.gateway.requests.length === 1, 'the request');
    expect(ctx.gateway.requests[0]!.body).toMatchObject({ model: 'lorem-2', messages: [{ content: 'remember me' }, { content: 'remember me' }, { content: 'go on' }] });
  });

  it('writes the input history when saving, and none with --no-save or save: false', async () => {
    const saved = chat(['-m', 'echo']);
    await saved.waitForText(READY);
    await exchange(saved, 'kept prompt', 1);
    saved.keys('C-d');
    expect(await saved.waitForExit()).toBe(0);
    expect(readFileSync(historyFile(), 'utf8')).toBe('"kept prompt"\n');

    ctx.user.cleanup();
    ctx.user = makeUserDirs();
    const unsaved = chat(['-m', 'echo', '--no-save']);
    await unsaved.waitForText(READY);
    await exchange(unsaved, 'private prompt', 2);
    unsaved.keys('C-d');
    expect(await unsaved.waitForExit()).toBe(0);
    expect(existsSync(historyFile())).toBe(false);
    // Nothing but the usage ledger, which --no-save keeps (SPEC §16: spending is not the conversation).
    expect(existsSync(ctx.user.dataDir) ? readdirSync(ctx.user.dataDir).filter((name) => name !== 'usage.jsonl') : []).toEqual([]);

    expect((await runCli(['config', 'set', 'save', 'false'], { env: ctx.user.env() })).code).toBe(0);
    const configured = chat(['-m', 'echo']);
    await configured.waitForText(READY);
    await exchange(configured, 'also private', 3);
    configured.keys('C-d');
    expect(await configured.waitForExit()).toBe(0);
    expect(existsSync(historyFile())).toBe(false);
  });
});
