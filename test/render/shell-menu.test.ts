// Shell mode's pure parts (SPEC §18): which key does what, and the command taken out of an answer.
import { describe, expect, it } from 'vitest';
import { commandFromAnswer, SHELL_MENU, shellAction, shellPrompt } from '../../src/render/shell-menu.js';

describe('shellAction', () => {
  it('maps r e c d q (either case), Esc, Ctrl-D and Ctrl-C; every other key means nothing', () => {
    expect(['r', 'E', 'c', 'D', 'q', '\u001b', '\u0004', '\u0003'].map(shellAction)).toEqual(['run', 'edit', 'copy', 'describe', 'quit', 'quit', 'quit', 'interrupt']);
    for (const key of ['\r', ' ', 'x', 'y', '\u001b[A', 'rr']) expect(shellAction(key)).toBeNull();
  });
});

describe('commandFromAnswer', () => {
  it('takes the first fenced block, drops a $ prompt and surrounding blank lines', () => {
    expect(commandFromAnswer('Run this:\n\n```bash\n$ find . -name "*.ts" | wc -l\n```\nThen …')).toBe('find . -name "*.ts" | wc -l');
    expect(commandFromAnswer('  ls -la  \n')).toBe('ls -la');
    expect(commandFromAnswer('```\n\n```')).toBe('');
  });
});

describe('shellPrompt', () => {
  it('shows the command without its escape codes, then the keys', () => {
    expect(shellPrompt('echo \u001b[31mred\u001b[0m\u001b]0;title\u0007')).toBe(`› echo red\n${SHELL_MENU}\n`);
  });
});
