// SPEC §8 "Terminal safety": gateway text drawn on a terminal cannot act on it; pipes keep the bytes.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runInPty, visible } from '../helpers/pty.js';

const ESC = '\u001B';
const BEL = '\u0007';
// `echo` repeats the prompt: an answer that would retitle the window, write the clipboard and clear the screen.
const HOSTILE = `title${ESC}]2;PWNED${BEL} clip${ESC}]52;c;aGVsbG8=${BEL} wipe${ESC}[2J${ESC}[3J end`;

const ctx = useGatewayAndUser();

describe('terminal safety', () => {
  it('one-shot on a terminal: the answer cannot retitle the window, write the clipboard or clear the screen', async () => {
    const { code, raw } = await runInPty(['--base-url', ctx.base, '-m', 'echo', HOSTILE], { env: ctx.user.env() });
    expect(code, visible(raw)).toBe(0);
    expect(raw).toContain('title clip wipe end');
    expect(raw, visible(raw)).not.toContain(`${ESC}]`);
    expect(raw).not.toContain('PWNED');
    expect(raw).not.toContain('aGVsbG8=');
    expect(raw, visible(raw)).not.toContain(`${ESC}[3J`);
    expect(raw, visible(raw)).not.toContain(`${ESC}[2J`);
  });

  it('piped stdout keeps the answer byte for byte, escape codes included', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', HOSTILE], { env: ctx.user.env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${HOSTILE}\n`);
  });

  it('history show and list on a terminal draw saved text without its escape codes; piped they keep it', async () => {
    const sent = await runCli(['--base-url', ctx.base, '-m', 'echo', HOSTILE], { env: ctx.user.env() });
    expect(sent.code).toBe(0);
    const list = await runCli(['history', 'list', '--json'], { env: ctx.user.env() });
    const cid = (JSON.parse(list.stdout) as Array<{ cid: string }>)[0]!.cid;

    for (const args of [['history', 'show', cid], ['history', 'list']]) {
      const { code, raw } = await runInPty(args, { env: ctx.user.env() });
      expect(code, visible(raw)).toBe(0);
      expect(raw).toContain('title clip wipe end');
      expect(raw, `${args.join(' ')}: ${visible(raw)}`).not.toContain(`${ESC}]`);
      expect(raw).not.toContain(`${ESC}[2J`);
    }
    const piped = await runCli(['history', 'show', cid], { env: ctx.user.env() });
    expect(piped.stdout).toContain(HOSTILE);
  });
});
