// -a '!command' (SPEC §18): what reaches the attachment and the error line, the limits, and stopping
// everything the command started at its time limit.
import { existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCommandInput as run } from '../../src/session/command-input.js';

/** The attachment's text (a command's output is always a text attachment). */
const runCommandInput = run;
const text = async (value: string, timeoutMs?: number): Promise<string> => {
  const attachment = await run(value, timeoutMs);
  if (attachment.kind !== 'text') throw new Error(`expected text, got ${attachment.kind}`);
  return attachment.text;
};

const dir = mkdtempSync(join(tmpdir(), 'gatechat-command-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const savedShell = process.env.SHELL;
afterEach(() => {
  if (savedShell === undefined) delete process.env.SHELL;
  else process.env.SHELL = savedShell;
});

describe('runCommandInput: the error line', () => {
  it('quotes the last non-empty stderr line of several, trimmed', async () => {
    await expect(runCommandInput("!printf 'one\\ntwo\\nthree  \\n   \\n' >&2; exit 4")).rejects.toThrow(/: the command exited with status 4: three$/);
  });

  it('shortens a long last line to its last 200 characters, and keeps one of exactly 200', async () => {
    const long = `${'a'.repeat(50)}${'b'.repeat(200)}`;
    await expect(runCommandInput(`!printf '${long}' >&2; exit 1`)).rejects.toThrow(new RegExp(`: exited with status 1: …${'b'.repeat(200)}$`.replace('exited', 'the command exited')));
    const exact = `c${'d'.repeat(199)}`;
    await expect(runCommandInput(`!printf '${exact}' >&2; exit 1`)).rejects.toThrow(new RegExp(`status 1: ${exact}$`));
  });

  it('looks only at the last 4 KiB of stderr', async () => {
    // A line followed by more than 4 KiB of blank lines: nothing left to quote.
    await expect(runCommandInput("!printf 'early words'; head -c 5000 /dev/zero | tr '\\0' '\\n' >&2; exit 3")).rejects.toThrow(/: the command exited with status 3$/);
    await expect(runCommandInput("!echo 'early words' >&2; head -c 5000 /dev/zero | tr '\\0' '\\n' >&2; exit 3")).rejects.toThrow(/: the command exited with status 3$/);
    // More than 4 KiB before the last line, in one write: the last line is still there.
    await expect(runCommandInput("!printf '%s\\nfinal words\\n' \"$(head -c 5000 /dev/zero | tr '\\0' x)\" >&2; exit 3")).rejects.toThrow(/: the command exited with status 3: final words$/);
  });
});

describe('runCommandInput: the shell and the environment', () => {
  it('runs through $SHELL -c, else /bin/sh, and names a shell that cannot start', async () => {
    const shell = join(dir, 'myshell');
    writeFileSync(shell, '#!/bin/sh\nprintf "myshell %s %s" "$1" "$2"\n');
    chmodSync(shell, 0o755);
    process.env.SHELL = shell;
    expect(await text('!anything')).toBe('myshell -c anything');
    process.env.SHELL = '';
    expect(await text('!printf "%s" "$0"')).toBe('/bin/sh');
    delete process.env.SHELL;
    expect(await text('!printf "%s" "$0"')).toBe('/bin/sh');
    process.env.SHELL = join(dir, 'no-such-shell');
    await expect(runCommandInput('!true')).rejects.toMatchObject({ exitCode: 2, message: `-a !true: could not start ${join(dir, 'no-such-shell')} (ENOENT)` });
  });

  it('gives the command no stdin, and marks its processes with a run id', async () => {
    expect(await text('!cat; printf done', 5000)).toBe('done');
    expect(await text('!printf %s "$GATECHAT_INPUT_COMMAND_RUN"')).toMatch(/^[0-9a-f]{24}$/);
    expect(await text('!printf %s "$HOME"')).toBe(process.env.HOME);
  });
});

describe('runCommandInput: limits', () => {
  it('takes output of exactly 8 MiB and refuses more', async () => {
    expect(await text('!head -c 8388608 /dev/zero | tr "\\0" x')).toHaveLength(8 * 1024 * 1024);
    await expect(runCommandInput('!head -c 8388609 /dev/zero | tr "\\0" x')).rejects.toMatchObject({
      exitCode: 2,
      message: '-a !head -c 8388609 /dev/zero | tr "\\0" x: the output is over the 8 MiB limit for text',
    });
  });

  it('at the time limit stops what the command started, even a process that left its tree', async () => {
    const marker = join(dir, 'orphan-ran');
    await expect(runCommandInput(`!( (sleep 0.6; touch '${marker}') & ); sleep 5`, 300)).rejects.toThrow(/did not finish within 0\.3 s \(stopped\)$/);
    await sleep(900);
    expect(existsSync(marker)).toBe(false);
  });
});
