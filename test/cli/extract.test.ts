// `-x, --extract`: the first fenced code block of the answer on stdout (the whole answer when there is
// none), the saved answer whole; through the built binary, the `echo` model repeating the prompt.
import { describe, expect, it } from 'vitest';
import { extractAnswer, firstCodeBlock } from '../../src/render/extract.js';
import { runCli } from '../helpers/cli.js';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

const ctx = useGatewayAndTerminals();
const ask = (args: string[], prompt: string) => runCli(['--base-url', ctx.base, '-m', 'echo', ...args], { env: ctx.user.env(), stdin: prompt });

const ANSWER = 'Here is the script:\n\n```bash\n#!/bin/sh\nfor f in *.txt; do\n  wc -l "$f"\ndone\n```\n\nAnd another:\n\n```\nsecond\n```';

describe('gatechat -x', () => {
  it('prints only the first fenced block, piped; the saved answer stays whole', async () => {
    const result = await ask(['-x'], ANSWER);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('#!/bin/sh\nfor f in *.txt; do\n  wc -l "$f"\ndone\n');
    const saved = JSON.parse((await runCli(['history', 'show', '--json'], { env: ctx.user.env() })).stdout);
    expect(saved.find((r: { type: string }) => r.type === 'assistant').content).toBe(ANSWER);
  });

  it('prints the whole answer when it has no block', async () => {
    const result = await ask(['--extract'], 'no code here\njust words');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('no code here\njust words\n');
  });

  it('works the same over Messages and without streaming', async () => {
    for (const args of [['--api', 'messages'], ['--no-stream'], ['--api', 'messages', '--no-stream']]) {
      const result = await ask(['-x', ...args], ANSWER);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('#!/bin/sh\nfor f in *.txt; do\n  wc -l "$f"\ndone\n');
    }
  });

  it('--json keeps text whole and adds extract', async () => {
    const result = await ask(['-x', '--json'], ANSWER);
    expect(result.code, result.stderr).toBe(0);
    const object = JSON.parse(result.stdout);
    expect(object.text).toBe(ANSWER);
    expect(object.extract).toBe('#!/bin/sh\nfor f in *.txt; do\n  wc -l "$f"\ndone\n');
    const without = JSON.parse((await ask(['--json'], ANSWER)).stdout);
    expect('extract' in without).toBe(false);
  });

  it('--jsonl: the done event carries extract', async () => {
    const result = await ask(['-x', '--jsonl'], ANSWER);
    const events = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(events.at(-1).type).toBe('done');
    expect(events.at(-1).extract).toBe('#!/bin/sh\nfor f in *.txt; do\n  wc -l "$f"\ndone\n');
    expect(events.filter((e) => e.type === 'text').map((e) => e.delta).join('')).toBe(ANSWER);
  });

  it('a cut-off answer yields what arrived of its block, then the error (exit 8)', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'drop-after-4', '-x', 'go'], { env: ctx.user.env() });
    expect(result.code).toBe(8);
    expect(result.stdout.trim().split(/\s+/)).toHaveLength(4);
    expect(result.stderr).toMatch(/^gatechat: .*\n$/);
  });

  it('chat does not take it', async () => {
    const result = await runCli(['chat', '-x', '--base-url', ctx.base, '-m', 'echo'], { env: ctx.user.env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("gatechat: unknown option '-x' (see: gatechat chat --help)\n");
  });
});

describeInTerminal('gatechat -x on a terminal', () => {
  it('prints the block as plain text, with the escape codes of the answer removed', async () => {
    const prompt = 'Run:\n```sh\nls -la\u001b]2;pwned\u0007\n```\nbye';
    const session = ctx.launch(['-x', '--no-save', '--base-url', ctx.base, '-m', 'echo', prompt]);
    expect(await session.waitForExit(15_000)).toBe(0);
    const lines = session.screen().split('\n');
    expect(lines[0]).toBe('ls -la');
    expect(session.screen()).not.toContain('```');
    expect(session.screen()).not.toContain('bye');
    expect(session.tmux('display-message', '-p', '#{pane_title}')).not.toContain('pwned');
  });
});

describeInTerminal('gatechat -x with no prompt on a terminal', () => {
  it('would open the chat: refused with one line, exit 2', async () => {
    const session = ctx.launch(['-x', '--base-url', ctx.base, '-m', 'echo']);
    expect(await session.waitForExit(15_000)).toBe(2);
    expect(session.screen()).toContain('gatechat: --extract: only for a one-shot answer (give a prompt, or pipe stdout)');
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});

describe('firstCodeBlock', () => {
  it.each([
    ['no fences', null],
    ['```\nplain\n```', 'plain'],
    ['~~~python\nprint(1)\n~~~\n```\nnot this\n```', 'print(1)'],
    ['````md\n```\ninner\n```\n````', '```\ninner\n```'],
    ['```js\nunclosed\nstill code', 'unclosed\nstill code'],
    ['  ```\n  indented\n    more\n  ```', 'indented\n  more'],
    ['a\r\n```sh\r\nls\r\n```\r\n', 'ls'],
    ['``` not a `fence`\ntext', null],
    ['    ```\nindented four: code, not a fence', null],
    ['```\n```', ''],
  ])('%j → %j', (text, block) => {
    expect(firstCodeBlock(text)).toBe(block);
  });

  it('extractAnswer ends with one newline unless empty', () => {
    expect(extractAnswer('```\nx\n```')).toBe('x\n');
    expect(extractAnswer('whole\n')).toBe('whole\n');
    expect(extractAnswer('```\n```')).toBe('');
  });
});
