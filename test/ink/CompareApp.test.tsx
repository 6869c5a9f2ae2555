import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import type { TurnOutcome } from '../../src/session/types.js';
import { runCompare } from '../../src/session/compare.js';
import { CompareApp, tailLines } from '../../src/render/ink/CompareApp.js';
import { formatSummaryTable, summaryRows } from '../../src/render/compare.js';
import { FakeConversation } from './fake-conversation.js';

afterEach(() => cleanup());

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function conversations() {
  const fast = new FakeConversation();
  fast.answer = () => 'short answer';
  const slow = new FakeConversation();
  slow.delayMs = 40;
  slow.answer = () => 'one two three four five six seven eight';
  return [fast, slow];
}

describe('CompareApp', () => {
  it('a live pane per model while streaming, then each answer whole in order and the summary table', async () => {
    let done: TurnOutcome[] | null = null;
    const names = ['fast-model', 'slow-model'];
    const convs = conversations();
    const app = render(
      <CompareApp names={names} run={(handlers, signal) => runCompare(convs, 'hi', signal, handlers)} keys color={false} onDone={(o) => (done = o)} />,
    );
    await until(() => app.frames.some((f) => f.includes('slow-model · streaming') && f.includes('fast-model · done')), 'both panes live');
    await until(() => done !== null, 'the outcomes');
    const all = app.frames.join('\n');
    expect(all).toContain('== fast-model ==\nshort answer');
    expect(all).toContain('== slow-model ==\none two three four five six seven eight');
    expect(all.indexOf('== fast-model ==')).toBeLessThan(all.indexOf('== slow-model =='));
    // The table is drawn in the frame that follows the outcomes; Ink may flush it after onDone, so wait
    // for that frame rather than reading whichever frame happens to be last.
    const header = /model\s+first token ms\s+total s\s+tokens\s+tokens\/s\s+cost\s+finish/;
    await until(() => app.frames.some((f) => header.test(f)), 'the summary table');
    const table = app.frames.find((f) => header.test(f))!;
    expect(table).toMatch(/slow-model\s+1\s+0\.01\s+8\s+800\.0\s+–\s+stop/);
  });

  it("a model's retry notices show in its own pane until its answer starts", async () => {
    let done: TurnOutcome[] | null = null;
    const convs = conversations();
    convs[1].delayMs = 300;
    let show: ((index: number, line: string) => void) | undefined;
    const app = render(
      <CompareApp
        names={['a', 'b']}
        run={(handlers, signal) => runCompare(convs, 'hi', signal, handlers)}
        showRetryNotices={(s) => (show = s)}
        keys
        color={false}
        onDone={(o) => (done = o)}
      />,
    );
    await until(() => show !== undefined && app.frames.some((f) => f.includes('b · sending')), 'b sending');
    show!(1, 'gatechat: [b] HTTP 503 from the gateway; retry 1 of 2 in 0.4 s');
    await until(() => app.frames.some((f) => f.includes('b · HTTP 503 from the gateway; retry 1 of 2 in 0.4 s')), 'the notice in the pane');
    await until(() => done !== null, 'the outcomes');
  });

  it('Ctrl-C cancels every model and keeps what arrived', async () => {
    let done: TurnOutcome[] | null = null;
    const convs = conversations();
    convs[0].delayMs = 40;
    const app = render(
      <CompareApp names={['a', 'b']} run={(handlers, signal) => runCompare(convs, 'hi', signal, handlers)} keys color={false} onDone={(o) => (done = o)} />,
    );
    await until(() => app.frames.some((f) => f.includes('a · streaming')), 'streaming');
    app.stdin.write('\u0003');
    await until(() => done !== null, 'the outcomes');
    expect(done!.map((o) => o.status)).toEqual(['cancelled', 'cancelled']);
    expect(done![1].result.text.length).toBeGreaterThan(0);
  });
});

describe('compare summary', () => {
  it('tailLines keeps the last screen lines, wrapping long ones', () => {
    expect(tailLines('a\nb\nc\nd', 2, 10)).toBe('c\nd');
    expect(tailLines('abcdefghij', 2, 4)).toBe('efgh\nij');
  });

  it('the table says – where the gateway gave no figure, and the exit code of a failure', () => {
    const outcome = (patch: Partial<TurnOutcome>): TurnOutcome => ({
      status: 'complete',
      result: { text: '', reasoning: null, tool_calls: [], finish_reason: 'length', raw_finish_reason: null, usage: { input_tokens: null, output_tokens: null }, model: null, api: 'chat', cid: null },
      timings: { firstTokenMs: null, totalMs: 1500 },
      ...patch,
    });
    const lines = formatSummaryTable(summaryRows(['x', 'y'], [outcome({}), outcome({ status: 'error', error: Object.assign(new Error('no'), { exitCode: 4 }) as never })]));
    expect(lines[1]).toMatch(/^x\s+–\s+1\.50\s+–\s+–\s+–\s+length$/);
    expect(lines[2]).toMatch(/^y\s+–\s+1\.50\s+–\s+–\s+–\s+error \(exit 4\)$/);
  });

  it('the cost column (SPEC §16): the gateway\'s figure as is, a computed one with ~', () => {
    const outcome = (cost: TurnOutcome['result']['cost']): TurnOutcome => ({
      status: 'complete',
      result: { text: '', reasoning: null, tool_calls: [], finish_reason: 'stop', raw_finish_reason: null, usage: { input_tokens: 1, output_tokens: 2 }, model: null, api: 'chat', cid: null, cost },
      timings: { firstTokenMs: 5, totalMs: 1000 },
    });
    const lines = formatSummaryTable(summaryRows(['a', 'b'], [outcome({ usd: 0.0042, source: 'gateway' }), outcome({ usd: 0.0000031, source: 'prices' })]));
    expect(lines[1]).toMatch(/^a\s+5\s+1\.00\s+2\s+2\.0\s+\$0\.0042\s+stop$/);
    expect(lines[2]).toMatch(/^b\s+5\s+1\.00\s+2\s+2\.0\s+~\$0\.0000031\s+stop$/);
  });
});
