import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { until } from './ink-test-kit.js';
import type { ChatEvent } from '../../src/protocol/events.js';
import type { TurnOutcome } from '../../src/session/types.js';
import { OneShotApp } from '../../src/render/ink/OneShotApp.js';
import { footerText } from '../../src/render/ink/index.js';
import { loadMarkdown } from '../../src/render/ink/markdown-loader.js';

afterEach(() => cleanup());

const outcome = (status: TurnOutcome['status'], text: string): TurnOutcome => ({
  status,
  result: {
    text, reasoning: 'thought', tool_calls: [], finish_reason: 'stop', raw_finish_reason: null,
    usage: { input_tokens: 2, output_tokens: 3 }, model: 'm-reported', api: 'chat', cid: null,
  },
  timings: { firstTokenMs: 1, totalMs: 2500 },
});

describe('OneShotApp', () => {
  it('prints the answer and tool calls on stdout, reasoning on stderr, then reports the outcome', async () => {
    let done: TurnOutcome | null = null;
    async function* run(): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      yield { type: 'reasoning', delta: 'thinking hard' };
      yield { type: 'text', delta: '# Title\n\nBody text.' };
      yield { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { q: 'x' } };
      return outcome('complete', '# Title\n\nBody text.');
    }
    const app = render(<OneShotApp run={run} color={false} showReasoning quiet={false} keys onDone={(o) => (done = o)} />);
    await until(() => done !== null, 'the outcome');
    // Finished blocks move to <Static>, which is written once: look at every frame, not only the last.
    const out = app.frames.join('\n');
    expect(out).toContain('Title');
    expect(out).toContain('Body text.');
    expect(out).toContain('tool call lookup');
    expect(out).not.toContain('thinking hard');
    expect(app.stderr.frames.join('')).toContain('thinking hard');
  });

  it('ends when the whole answer arrives before the first re-render (Markdown already loaded)', async () => {
    await loadMarkdown();
    let done: TurnOutcome | null = null;
    async function* run(): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      yield { type: 'text', delta: 'quick' };
      return outcome('complete', 'quick');
    }
    const app = render(<OneShotApp run={run} color={false} showReasoning quiet keys onDone={(o) => (done = o)} />);
    await until(() => done !== null, 'the outcome');
    expect(app.frames.join('\n')).toContain('quick');
  });

  it('Ctrl-C aborts the run signal', async () => {
    let done: TurnOutcome | null = null;
    async function* run(signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      yield { type: 'text', delta: 'partial' };
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      return outcome('cancelled', 'partial');
    }
    const app = render(<OneShotApp run={run} color={false} showReasoning quiet keys onDone={(o) => (done = o)} />);
    await until(() => (app.lastFrame() ?? '').includes('partial'), 'the partial text');
    app.stdin.write('\u0003');
    await until(() => done !== null, 'the outcome');
    expect(done!.status).toBe('cancelled');
  });

  it('formats the footer as model · interface · tokens · seconds', () => {
    expect(footerText(outcome('complete', 'x'), 'asked', 'chat')).toBe('m-reported · chat · in 2 / out 3 tokens · 2.5s');
  });
});
