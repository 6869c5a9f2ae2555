// A pipe on stdin that stays silent: on a terminal (stderr), gatechat says it is reading stdin after
// 2 s; with stderr not a terminal it says nothing. Built binary; tmux for the terminal.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { binPath, shellQuoteArgs } from '../helpers/cli.js';
import { describeInTerminal, shellQuote, useGatewayAndTerminals, type TmuxSession } from '../helpers/tmux.js';

const ctx = useGatewayAndTerminals();
const HINT = 'gatechat: reading the prompt from stdin, which has sent nothing yet (pass --no-stdin to skip it)';

/** `producer | gatechat … hi > out` in a terminal: stdin a pipe, stdout a file, stderr the terminal. */
function pipeline(producer: string): { session: TmuxSession; out: string } {
  const out = join(ctx.user.home, 'out.txt');
  const gatechat = shellQuoteArgs([process.execPath, binPath, '--base-url', ctx.base, '-m', 'echo', '--no-save', 'hi']);
  return { session: ctx.open(`sh -c ${shellQuote(`${producer} | ${gatechat} > ${shellQuote(out)}`)}`), out };
}

describeInTerminal('a silent stdin pipe, stderr on a terminal', () => {
  it('after 2 s of nothing, one line says gatechat is reading stdin; the answer still comes', async () => {
    const { session, out } = pipeline('sleep 4');
    await session.waitForText(HINT, 8_000);
    expect(await session.waitForExit(15_000)).toBe(0);
    expect(session.screen().split('\n').filter((line) => line.includes('reading the prompt'))).toEqual([HINT]);
    expect(readFileSync(out, 'utf8')).toBe('hi\n');
  });

  it('no hint when the pipe delivers at once', async () => {
    const { session, out } = pipeline("printf 'text'");
    expect(await session.waitForExit(15_000)).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('text\n\nhi\n');
    expect(session.screen()).not.toContain('reading the prompt');
  });
});

it('no hint when stderr is not a terminal, however long stdin stays silent', async () => {
  const child = spawn(process.execPath, [binPath, '--base-url', ctx.base, '-m', 'echo', '--no-save', 'hi'], {
    env: { ...process.env, ...ctx.user.env() },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Well past the 2 s after which a terminal would get the hint, then the input and EOF.
  setTimeout(() => child.stdin.end('late'), 3_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  expect(stderr).toBe('');
  expect(stdout).toBe('late\n\nhi\n');
});
