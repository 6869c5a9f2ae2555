// SPEC §8: the Ink views draw gateway text without its escape codes (answers, reasoning, tool calls, errors).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render } from 'ink-testing-library';
import { until } from './ink-test-kit.js';
import { GatechatError, ExitCode } from '../../src/exit-codes.js';
import type { ChatEvent } from '../../src/protocol/events.js';
import type { TurnOutcome } from '../../src/session/types.js';
import { ChatApp } from '../../src/render/ink/ChatApp.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';
import { loadMarkdown } from '../../src/render/ink/markdown-loader.js';
import { OneShotApp } from '../../src/render/ink/OneShotApp.js';
import { FakeConversation } from './fake-conversation.js';

afterEach(() => cleanup());

const ESC = '\u001B';
const BEL = '\u0007';
const osc = (payload: string) => `${ESC}]${payload}${BEL}`;

/**
 * With colour off the views write no escape codes of their own but bold, italic, underline and
 * strikethrough (NO_COLOR forbids colour only, SPEC §8): any other ESC or BEL came from the gateway.
 */
function expectNoControls(output: string) {
  // Bracketed paste on and off is the chat's own, and so are attribute-only SGR sequences.
  output = output.replace(/\u001B\[\?2004[hl]/g, '').replace(/\u001B\[(?:(?:0|1|3|4|9|2[2-4]|29);?)*m/g, '');
  expect(output).not.toMatch(/[\u0007\u001B\u009B\u009D]/);
  expect(output).not.toContain('PWNED');
}

function outcome(status: TurnOutcome['status'], text: string, error?: GatechatError): TurnOutcome {
  return {
    status,
    error,
    result: {
      text, reasoning: null, tool_calls: [], finish_reason: status === 'complete' ? 'stop' : 'error', raw_finish_reason: null,
      usage: { input_tokens: 1, output_tokens: 1 }, model: `m${osc('2;PWNED')}`, api: 'chat', cid: null,
    },
    timings: { firstTokenMs: 1, totalMs: 5 },
  };
}

describe('terminal safety in the Ink views', () => {
  it('one-shot: answer, reasoning (stderr) and tool call lose their escape codes', async () => {
    await loadMarkdown();
    let done: TurnOutcome | null = null;
    async function* run(): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      yield { type: 'reasoning', delta: `thinking${osc('52;c;PWNED')} hard` };
      yield { type: 'text', delta: `answer${osc('2;PWNED')} text${ESC}[2J done` };
      yield { type: 'tool_call', id: `call${ESC}[1A_1`, name: `look${osc('0;PWNED')}up`, arguments: `not json${ESC}[31m` };
      return outcome('complete', 'answer text done');
    }
    const app = render(<OneShotApp run={run} color={false} showReasoning quiet={false} keys onDone={(o) => (done = o)} />);
    await until(() => done !== null, 'the outcome');
    const out = app.frames.join('\n');
    expect(out).toContain('answer text done');
    expect(out).toContain('tool call lookup');
    expect(out).toContain('call_1');
    expect(out).toContain('not json');
    expectNoControls(out);
    const err = app.stderr.frames.join('');
    expect(err).toContain('thinking hard');
    expectNoControls(err);
  });

  it('chat: answers, reasoning, tool calls and error lines lose their escape codes', async () => {
    await loadMarkdown();
    const conversation = new FakeConversation();
    conversation.send = (prompt: string) => {
      conversation.sent.push(prompt);
      return (async function* (): AsyncGenerator<ChatEvent, TurnOutcome, void> {
        if (prompt === 'fail') {
          return outcome('error', '', new GatechatError(`gateway said: no${osc('52;c;PWNED')}pe`, ExitCode.server, `hint${ESC}[2J here`));
        }
        yield { type: 'reasoning', delta: `why${osc('2;PWNED')} not` };
        yield { type: 'text', delta: `# Head${ESC}[3Jing\n\nbody${osc('52;c;PWNED')} text` };
        yield { type: 'tool_call', id: 'c1', name: `to${ESC}]0;PWNED${ESC}\\ol`, arguments: { q: `x${ESC}` } };
        return outcome('complete', 'body text');
      })();
    };
    const history = openInputHistory(join(mkdtempSync(join(tmpdir(), 'gc-ink-')), 'h.jsonl'));
    const app = render(
      <ChatApp conversation={conversation} history={history} color={false} showReasoning version="9" onExit={vi.fn()} env={{}} />,
    );
    app.stdin.write('go');
    await new Promise((r) => setTimeout(r, 5));
    app.stdin.write('\r');
    await until(() => app.frames.join('\n').includes('tool call tool'), 'the tool call');
    app.stdin.write('fail');
    await new Promise((r) => setTimeout(r, 5));
    app.stdin.write('\r');
    await until(() => app.frames.join('\n').includes('gateway said: nope'), 'the error line');
    const out = app.frames.join('\n');
    expect(out).toContain('Heading');
    expect(out).toContain('body text');
    expect(out).toContain('why not');
    expect(out).toContain('hint here');
    expectNoControls(out);
  });
});
