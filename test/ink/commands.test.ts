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
    expect(completeCommand('/mo')).toEqual({ value: '/model', candidates: ['model', 'models'] });
    expect(completeCommand('/he')).toEqual({ value: '/help ', candidates: ['help'] });
    expect(completeCommand('/s')).toEqual({ value: '/s', candidates: ['system', 'stream', 'save'] });
    expect(completeCommand('/re')).toEqual({ value: '/re', candidates: ['reasoning', 'retry'] });
    expect(completeCommand('hello')).toBeNull();
    expect(completeCommand('/model x')).toBeNull();
  });

  it('completes /model with the ids and aliases it is given', () => {
    const names = () => ['fast', 'fallback', 'openai/gpt-4o', 'openai/gpt-4o-mini', 'fast'];
    expect(completeCommand('/model fa', names)).toEqual({ value: '/model fa', candidates: ['fast', 'fallback'] });
    expect(completeCommand('/model fas', names)).toEqual({ value: '/model fast ', candidates: ['fast'] });
    expect(completeCommand('/model open', names)).toEqual({ value: '/model openai/gpt-4o', candidates: ['openai/gpt-4o', 'openai/gpt-4o-mini'] });
    expect(completeCommand('/model zz', names)).toEqual({ value: '/model zz', candidates: [] });
    expect(completeCommand('/model ', names)!.candidates).toHaveLength(4);
    // Names are offered only after /model.
    expect(completeCommand('/system fa', names)).toBeNull();
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

describe('/model and /models with a model catalog', () => {
  it('/model ALIAS applies the resolved id and settings; /models shows the catalog; bad names change nothing', async () => {
    const { runCommand } = await import('../../src/render/ink/slash-commands.js');
    const { FakeConversation } = await import('./fake-conversation.js');
    const conversation = new FakeConversation();
    const notices: Array<[string, string]> = [];
    const ctx = {
      conversation,
      notice: (text: string, tone: string) => notices.push([text, tone]),
      startTurn: () => {},
      exit: () => {},
      toggleReasoning: () => {},
      reset: () => {},
      copy: () => {},
      lastAnswer: () => null,
      edit: () => {},
      models: {
        names: () => ['critic'],
        describe: (filter: string) => `catalog for ${JSON.stringify(filter)}`,
        resolve: (name: string) => (name === 'critic' ? { model: 'vendor/critic-1', temperature: 0.3 } : { model: name }),
      },
    };
    runCommand('model', 'critic', ctx as never);
    expect(conversation.settings).toMatchObject({ model: 'vendor/critic-1', temperature: 0.3 });
    expect(notices.pop()).toEqual(['model: vendor/critic-1 (alias critic)', 'dim']);
    runCommand('model', 'other-id', ctx as never);
    expect(conversation.settings.model).toBe('other-id');
    expect(notices.pop()).toEqual(['model: other-id', 'dim']);
    runCommand('model', 'has space', ctx as never);
    expect(conversation.settings.model).toBe('other-id');
    expect(notices.pop()![1]).toBe('error');
    runCommand('models', 'gpt', ctx as never);
    expect(notices.pop()).toEqual(['catalog for "gpt"', 'info']);
  });
});

describe('/retry -m (SPEC §17)', () => {
  it('switches the model (an alias through the catalog), asks again keeping both answers; plain /retry replaces; bad forms change nothing', async () => {
    const { runCommand } = await import('../../src/render/ink/slash-commands.js');
    const { FakeConversation } = await import('./fake-conversation.js');
    const conversation = new FakeConversation();
    const notices: Array<[string, string]> = [];
    const started: string[] = [];
    let running: AsyncGenerator<unknown> | null = null;
    const finish = async () => {
      for await (const _ of running!);
    };
    const ctx = {
      conversation,
      notice: (text: string, tone: string) => notices.push([text, tone]),
      startTurn: (events: AsyncGenerator<unknown>, prompt: string) => {
        started.push(prompt);
        running = events;
      },
      models: { names: () => ['critic'], describe: () => '', resolve: (name: string) => (name === 'critic' ? { model: 'vendor/critic-1' } : { model: name }) },
    };
    runCommand('retry', '-m critic', ctx as never);
    expect(notices.pop()).toEqual(['nothing to retry yet', 'warn']);
    expect(conversation.settings.model).toBe('fake-model');
    for await (const _ of conversation.send('first question', new AbortController().signal));
    runCommand('retry', '-m critic', ctx as never);
    await finish();
    runCommand('retry', '', ctx as never);
    await finish();
    expect(conversation.retries).toEqual([
      { keep: true, model: 'vendor/critic-1' },
      { keep: false, model: 'vendor/critic-1' },
    ]);
    expect(started).toEqual(['first question', 'first question']);
    runCommand('retry', 'critic', ctx as never);
    runCommand('retry', '-m', ctx as never);
    expect(notices.slice(-2).map(([, tone]) => tone)).toEqual(['error', 'error']);
    expect(conversation.retries).toHaveLength(2);
    // Tab completes the model after /retry -m as after /model.
    expect(completeCommand('/retry -m cr', () => ['critic'])).toEqual({ value: '/retry -m critic ', candidates: ['critic'] });
  });
});
