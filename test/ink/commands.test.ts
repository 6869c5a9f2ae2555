import { describe, expect, it } from 'vitest';
import { closestCommand, completeCommand, parseInput } from '../../src/render/ink/commands.js';
import { osc52 } from '../../src/render/ink/osc52.js';
import { transcriptMarkdown } from '../../src/render/ink/transcript.js';

describe('slash commands', () => {
  it('parses commands, aliases and prompts', () => {
    expect(parseInput('/model gpt-x')).toEqual({ kind: 'command', name: 'model', arg: 'gpt-x' });
    expect(parseInput('/quit')).toEqual({ kind: 'command', name: 'exit', arg: '' });
    expect(parseInput('hello')).toEqual({ kind: 'prompt', text: 'hello' });
    expect(parseInput('//etc/hosts')).toEqual({ kind: 'prompt', text: '/etc/hosts' });
    expect(parseInput('/modle x')).toEqual({ kind: 'unknown', name: 'modle', suggestion: 'model' });
    expect(parseInput('/zzzzzzzz')).toMatchObject({ kind: 'unknown', suggestion: null });
  });

  it('suggests the closest command', () => {
    expect(closestCommand('hepl')).toBe('help');
    expect(closestCommand('temp')).toBe('temperature');
  });

  it('completes command names', () => {
    expect(completeCommand('/mo')).toEqual({ value: '/model ', candidates: ['model'] });
    expect(completeCommand('/s')).toEqual({ value: '/s', candidates: ['system', 'stream', 'save'] });
    expect(completeCommand('/re')).toEqual({ value: '/re', candidates: ['reasoning', 'retry'] });
    expect(completeCommand('hello')).toBeNull();
    expect(completeCommand('/model x')).toBeNull();
  });
});

describe('osc52', () => {
  it('wraps the base64 text, and for tmux also in a passthrough', () => {
    expect(osc52('hi', {})).toBe('\u001B]52;c;aGk=\u0007');
    const tmux = osc52('hi', { TMUX: '/tmp/tmux' });
    expect(tmux).toContain('\u001BPtmux;\u001B\u001B]52;c;aGk=\u0007\u001B\\');
  });
});

describe('transcript', () => {
  it('writes user and assistant turns as Markdown sections', () => {
    const md = transcriptMarkdown(
      [
        {
          prompt: 'Hi',
          status: 'cancelled',
          result: { text: 'Hel', reasoning: null, tool_calls: [], finish_reason: 'cancelled', raw_finish_reason: null, usage: { input_tokens: 1, output_tokens: 1 }, model: 'm1', api: 'chat', cid: null },
        },
      ],
      { model: 'm1', api: 'chat', stream: true },
      new Date(0),
    );
    expect(md).toContain('## User\n\nHi\n');
    expect(md).toContain('## Assistant (m1)\n\nHel\n');
    expect(md).toContain('*(cancelled)*');
  });
});
