// SPEC §18 shell mode (`-e`): one command for this OS and shell. Piped, only the command on stdout; on a
// terminal it is shown (sanitised) with r run · e edit, then run · c copy · d describe · q quit, and it
// never runs without the key. The dev gateway's `echo` model answers with the prompt, so the prompt is
// the command it "suggests": deterministic without a model of its own.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

const MENU = 'r run · e edit, then run · c copy · d describe · q quit';

describe('-e piped', () => {
  const ctx = useGatewayAndUser();
  const body = () => ctx.gateway.requests.at(-1)!.body as Record<string, any>;

  it('prints only the command; asks for one command for this OS and shell; never runs it', async () => {
    const marker = join(ctx.user.home, 'ran');
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-e', `touch ${marker}`], { env: { ...ctx.user.env(), SHELL: '/bin/bash' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`touch ${marker}\n`);
    expect(existsSync(marker)).toBe(false);
    const [system, user] = body().messages;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/exactly one command/);
    expect(system.content).toContain('Linux');
    expect(system.content).toContain('bash');
    expect(user).toEqual({ role: 'user', content: `touch ${marker}` });
  });

  it('takes the command out of a fenced block and drops a $ prompt', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-e', 'Here:\n```sh\n$ ls -la /tmp\n```\nDone.'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('ls -la /tmp\n');
  });

  it('an -s adds to the shell instructions; the options that print something else are refused', async () => {
    const ok = await runCli(['--base-url', ctx.base, '-m', 'echo', '-e', '-s', 'Prefer POSIX tools.', 'ls'], { env: ctx.user.env() });
    expect(ok.code, ok.stderr).toBe(0);
    expect(body().messages[0].content).toMatch(/exactly one command[\s\S]*\n\nPrefer POSIX tools\.$/);
    for (const extra of [['--json'], ['--jsonl'], ['-x'], ['--schema', 'a'], ['-m', 'echo', '-m', 'lorem-3']]) {
      const refused = await runCli(['--base-url', ctx.base, '-m', 'echo', '-e', ...extra, 'ls'], { env: ctx.user.env() });
      expect(refused.code, extra.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(/^gatechat: -e: /);
    }
  });

  it('an answer with no command is exit 6 naming that, nothing run', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '-e', '```\n```'], { env: ctx.user.env() });
    expect(result.code).toBe(6);
    expect(result.stderr).toBe('gatechat: -e: the model answered with no command\n');
  });
});

describeInTerminal('-e on a terminal', () => {
  const ctx = useGatewayAndTerminals();
  const launch = (command: string) => ctx.launch(['--base-url', ctx.base, '-m', 'echo', '--no-save', '-e', command], { env: { SHELL: '/bin/sh' } });

  it('r runs the command through $SHELL -c; its exit status becomes gatechat\'s', async () => {
    const marker = join(ctx.user.home, 'ran');
    const s = launch(`echo ran-$((40+2)) > ${marker}; exit 3`);
    await s.waitForText(MENU);
    expect(s.screen()).toContain(`echo ran-$((40+2)) > ${marker}; exit 3`);
    expect(existsSync(marker)).toBe(false);
    s.keys('r');
    expect(await s.waitForExit()).toBe(3);
    expect(readFileSync(marker, 'utf8')).toBe('ran-42\n');
  });

  it('q quits without running it; other keys do nothing', async () => {
    const marker = join(ctx.user.home, 'ran');
    const s = launch(`touch ${marker}`);
    await s.waitForText(MENU);
    s.keys('x');
    s.keys('Enter');
    s.keys('Space');
    await new Promise((r) => setTimeout(r, 300));
    expect(s.exitStatus()).toBeNull();
    s.keys('q');
    expect(await s.waitForExit()).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('e edits the command on its line, Enter runs what was edited', async () => {
    const marker = join(ctx.user.home, 'edited');
    const s = launch('echo original');
    await s.waitForText(MENU);
    s.keys('e');
    await s.waitForText('edit> echo original');
    s.keys('C-u');
    s.type(`echo edited > ${marker}`);
    s.keys('Enter');
    expect(await s.waitForExit()).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('edited\n');
  });

  it('d describes it (a second question to the model), then the menu is back; c copies it with OSC 52', async () => {
    const s = launch('ls -la');
    const raw = s.record(join(ctx.user.home, 'raw.log'));
    await s.waitForText(MENU);
    s.keys('d');
    await s.waitForText('Explain briefly what this command does');
    const requests = ctx.gateway.requests.length;
    expect(requests).toBe(2);
    s.keys('c');
    await s.waitForText('copied to the clipboard');
    expect(raw()).toContain(`\u001b]52;c;${Buffer.from('ls -la').toString('base64')}\u0007`);
    s.keys('q');
    expect(await s.waitForExit()).toBe(0);
  });

  it('the command is shown through the terminal sanitiser: its escape codes never reach the terminal', async () => {
    const s = launch('echo hi\u001b]2;EVIL-TITLE\u0007 there');
    await s.waitForText(MENU);
    // Had the OSC 2 reached the terminal, it would be the pane's title.
    expect(s.tmux('display-message', '-p', '#{pane_title}')).not.toContain('EVIL-TITLE');
    expect(s.screen()).toContain('echo hi there');
    s.keys('q');
    expect(await s.waitForExit()).toBe(0);
  });
});
