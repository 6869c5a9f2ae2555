// SPEC §18 command output: `-a '!<command>'` runs it through $SHELL -c and attaches its stdout headed by
// the command; a failure, a time-out or too much output is exit 2, one line, nothing sent.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();

function gatechat(args: string[], options: { stdin?: string; env?: Record<string, string>; timeoutMs?: number } = {}) {
  return runCli(['--base-url', ctx.base, '-m', 'echo', ...args], { env: { ...ctx.user.env(), ...options.env }, stdin: options.stdin, cwd: ctx.user.home, timeoutMs: options.timeoutMs });
}

const body = (i = -1) => ctx.gateway.requests.at(i)!.body as Record<string, any>;

describe("-a '!command'", () => {
  it('attaches stdout as a fenced block headed by the command, before stdin and the prompt', async () => {
    const result = await gatechat(['-a', '!printf "one\\ntwo\\n"; echo err >&2', 'summarize'], { stdin: 'from stdin\n' });
    expect(result.code, result.stderr).toBe(0);
    const text = '$ printf "one\\ntwo\\n"; echo err >&2\n```\none\ntwo\n```\n\nfrom stdin\n\nsummarize';
    expect(body().messages).toEqual([{ role: 'user', content: text }]);
    // Its stderr is not attached, and not shown when it succeeds.
    expect(result.stderr).toBe('');
  });

  it('runs through $SHELL -c, in the current directory, without gatechat\'s stdin', async () => {
    const shell = join(ctx.user.home, 'myshell');
    writeFileSync(shell, '#!/bin/sh\necho "shell got: $1 $2"\nexec /bin/sh "$@"\n', { mode: 0o755 });
    const result = await gatechat(['-a', '!pwd; cat', 'q'], { stdin: 'the prompt\n', env: { SHELL: shell } });
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages[0].content).toBe(`$ pwd; cat\n\`\`\`\nshell got: -c pwd; cat\n${ctx.user.home}\n\`\`\`\n\nthe prompt\n\nq`);
  });

  it('a non-zero exit is exit 2 naming the status and the end of its stderr; nothing is sent', async () => {
    const result = await gatechat(['-a', '!echo partial; echo "fatal: not a git repository" >&2; exit 3', 'q']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: -a !echo partial; echo "fatal: not a git repository" >&2; exit 3: the command exited with status 3: fatal: not a git repository\n');
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('a command over 30 s is stopped (with what it started): exit 2, nothing sent', { timeout: 60_000 }, async () => {
    const started = Date.now();
    const result = await gatechat(['-a', '!sleep 100 & sleep 100', 'q'], { timeoutMs: 50_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: -a !sleep 100 & sleep 100: the command did not finish within 30 s (stopped)\n');
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('output over the 8 MiB text limit, or not text, is refused: exit 2, nothing sent', async () => {
    const big = await gatechat(['-a', '!head -c 9000000 /dev/zero | tr "\\0" a', 'q']);
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/^gatechat: -a !head -c 9000000 .*: the output is over the 8 MiB limit for text\n$/);
    const binary = await gatechat(['-a', '!printf "a\\0b"', 'q']);
    expect(binary.code).toBe(2);
    expect(binary.stderr).toBe('gatechat: -a !printf "a\\0b": the output is not UTF-8 text\n');
    const empty = await gatechat(['-a', '!', 'q']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('gatechat: -a !: expected a command after !\n');
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('a file whose name starts with ! is still reachable as ./!name', async () => {
    writeFileSync(join(ctx.user.home, '!notes'), 'bang\n');
    const result = await gatechat(['-a', './!notes', 'q']);
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages[0].content).toBe('./!notes\n```\nbang\n```\n\nq');
  });

  it("only where the user typed it: a batch file's \"attach\" never runs a command (it names a file)", async () => {
    const input = join(ctx.user.home, 'lines.jsonl');
    writeFileSync(input, `${JSON.stringify({ id: 'a', prompt: 'q', attach: ['!touch pwned'] })}\n`);
    const result = await runCli(['batch', input, '--base-url', ctx.base, '-m', 'echo'], { env: ctx.user.env(), cwd: ctx.user.home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot attach !touch pwned: no such file or directory; nothing was sent');
    expect(existsSync(join(ctx.user.home, 'pwned'))).toBe(false);
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});
