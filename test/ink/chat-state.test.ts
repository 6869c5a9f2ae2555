import { describe, expect, it } from 'vitest';
import { chatReducer, initialChat, LIVE_PENDING_MAX, pastTurnItems, type ChatState } from '../../src/render/ink/chat-state.js';
import { emptyBatch, type DeltaBatch } from '../../src/render/ink/delta-batch.js';
import type { TurnOutcome } from '../../src/session/types.js';

const batch = (patch: Partial<DeltaBatch>): DeltaBatch => ({ ...emptyBatch(), ...patch });

function outcome(status: TurnOutcome['status'], text: string, message?: string): TurnOutcome {
  return {
    status,
    result: {
      text, reasoning: null, tool_calls: [], finish_reason: status === 'complete' ? 'stop' : null, raw_finish_reason: null,
      usage: { input_tokens: 3, output_tokens: 7 }, model: 'm', api: 'chat', cid: null,
    },
    error: message ? Object.assign(new Error(message), { exitCode: 6 as const, name: 'GatechatError' }) as never : undefined,
    timings: { firstTokenMs: 5, totalMs: 1500 },
  };
}

const start = (s: ChatState) => chatReducer(s, { type: 'turn-start', prompt: 'hi', now: 0 });

describe('chat reducer', () => {
  it('moves finished Markdown blocks to the static items and keeps the rest live', () => {
    let s = start(initialChat({ showReasoning: true }));
    s = chatReducer(s, { type: 'batch', batch: batch({ text: 'First.\n\nSec' }), now: 10 });
    expect(s.items.map((i) => i.kind)).toEqual(['prompt', 'answer']);
    expect(s.live?.pending).toBe('Sec');
    expect(s.live?.firstTokenAt).toBe(10);
    s = chatReducer(s, { type: 'turn-end', outcome: outcome('complete', 'First.\n\nSecond'), now: 20 });
    expect(s.live).toBeNull();
    expect(s.items.filter((i) => i.kind === 'answer').map((i) => (i.kind === 'answer' ? i.text : ''))).toEqual(['First.\n\n', 'Sec']);
    expect(s.last).toMatchObject({ input_tokens: 3, output_tokens: 7, seconds: 1.5 });
  });

  it('an answer with no place to split (one endless line) still leaves the live region in bounded pieces, joined, nothing lost', () => {
    let s = start(initialChat({ showReasoning: true }));
    const line = 'x'.repeat(200 * 1024);
    for (let i = 0; i < line.length; i += 50_000) s = chatReducer(s, { type: 'batch', batch: batch({ text: line.slice(i, i + 50_000) }), now: 1 });
    expect(s.live!.pending.length).toBeLessThanOrEqual(LIVE_PENDING_MAX);
    const answers = s.items.filter((i) => i.kind === 'answer');
    expect(answers.length).toBeGreaterThan(1);
    for (const item of answers) expect(item.kind === 'answer' && item.text.length).toBeLessThanOrEqual(LIVE_PENDING_MAX);
    expect(answers.slice(1).every((i) => i.kind === 'answer' && i.joined)).toBe(true);
    expect(answers.map((i) => (i.kind === 'answer' ? i.text : '')).join('') + s.live!.pending).toBe(line);
  });

  it('a long code block cut for size is closed and reopened, so each piece renders as code', () => {
    let s = start(initialChat({ showReasoning: true }));
    const body = Array.from({ length: 4000 }, (_, i) => `const line${i} = ${i};`).join('\n');
    s = chatReducer(s, { type: 'batch', batch: batch({ text: '~~~ts\n' + body }), now: 1 });
    const pieces = s.items.filter((i) => i.kind === 'answer').map((i) => (i.kind === 'answer' ? i.text : ''));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.startsWith('~~~ts\n')).toBe(true);
      expect(piece.endsWith('\n~~~\n')).toBe(true);
    }
    expect(s.live!.pending.startsWith('~~~ts\n')).toBe(true);
    const code = [...pieces.map((p) => p.slice('~~~ts\n'.length, -'\n~~~\n'.length)), s.live!.pending.slice('~~~ts\n'.length)];
    expect(code.join('\n')).toBe(body);
  });

  it('what <Static> printed lets its text go (an answer is not held twice); later items and the live turn are untouched', () => {
    let s = start(initialChat({ showReasoning: true }));
    s = chatReducer(s, { type: 'batch', batch: batch({ reasoning: 'think', text: 'First.\n\nSec' }), now: 1 });
    const printed = s.items.at(-1)!.id;
    s = chatReducer(s, { type: 'batch', batch: batch({ text: 'ond.\n\nThird' }), now: 2 });
    const ids = s.items.map((i) => i.id);
    s = chatReducer(s, { type: 'forget-printed', through: printed });
    const texts = s.items.map((i) => ('text' in i ? i.text : ''));
    expect(texts).toEqual(['hi', '', '', 'Second.\n\n']);
    expect(s.items.map((i) => i.id)).toEqual(ids);
    expect(s.live!.pending).toBe('Third');
    expect(chatReducer(s, { type: 'forget-printed', through: printed })).toBe(s);
  });

  it('keeps the partial text of a cancelled answer and marks it cancelled', () => {
    let s = start(initialChat({ showReasoning: true }));
    s = chatReducer(s, { type: 'batch', batch: batch({ text: 'partial answer' }), now: 1 });
    s = chatReducer(s, { type: 'turn-end', outcome: outcome('cancelled', 'partial answer'), now: 2 });
    const tail = s.items.slice(-2);
    expect(tail[0]).toMatchObject({ kind: 'answer', text: 'partial answer' });
    expect(tail[1]).toMatchObject({ kind: 'notice', text: '⊘ cancelled' });
  });

  it('shows a failed turn as one error line', () => {
    let s = start(initialChat({ showReasoning: true }));
    s = chatReducer(s, { type: 'turn-end', outcome: outcome('error', '', 'HTTP 500'), now: 2, errorLine: 'HTTP 500: boom' });
    expect(s.items.at(-1)).toMatchObject({ kind: 'notice', tone: 'error', text: '✗ failed: HTTP 500: boom' });
  });

  it('moves reasoning out when the answer begins, folded when hidden, and unfolds on toggle', () => {
    let s = start(initialChat({ showReasoning: false }));
    s = chatReducer(s, { type: 'batch', batch: batch({ reasoning: 'step 1\nstep 2' }), now: 1 });
    expect(s.items.map((i) => i.kind)).toEqual(['prompt']);
    s = chatReducer(s, { type: 'batch', batch: batch({ text: 'Answer' }), now: 2 });
    expect(s.items.at(-1)).toMatchObject({ kind: 'reasoning-collapsed', lines: 2 });
    s = chatReducer(s, { type: 'turn-end', outcome: { ...outcome('complete', 'Answer'), result: { ...outcome('complete', 'Answer').result, reasoning: 'step 1\nstep 2' } }, now: 3 });
    s = chatReducer(s, { type: 'toggle-reasoning' });
    expect(s.showReasoning).toBe(true);
    expect(s.items.at(-1)).toMatchObject({ kind: 'reasoning', text: 'step 1\nstep 2' });
  });

  it('puts tool calls after the text', () => {
    let s = start(initialChat({ showReasoning: true }));
    s = chatReducer(s, { type: 'batch', batch: batch({ text: 'calling', toolCalls: [{ id: 't1', name: 'f', arguments: {} }] }), now: 1 });
    s = chatReducer(s, { type: 'turn-end', outcome: outcome('complete', 'calling'), now: 2 });
    expect(s.items.slice(-2).map((i) => i.kind)).toEqual(['answer', 'tool']);
  });

  it('does not copy or re-create items for batches that finish no block', () => {
    let s = start(initialChat({ showReasoning: true }));
    const items = s.items;
    s = chatReducer(s, { type: 'batch', batch: batch({ text: 'no split yet' }), now: 1 });
    expect(s.items).toBe(items);
  });

  it('reset starts over with a new epoch, so <Static> prints from scratch', () => {
    let s = start(initialChat({ showReasoning: true, banner: 'b' }));
    s = chatReducer(s, { type: 'reset', banner: 'b2' });
    expect(s.items).toMatchObject([{ kind: 'banner', text: 'b2' }]);
    expect(s.epoch).toBe(1);
  });
});

describe('pastTurnItems (a resumed chat)', () => {
  it('shows the last turns with their answers and marks, and says how many earlier ones are left out', () => {
    const turns = Array.from({ length: 4 }, (_, i) => ({ prompt: `q${i}`, ...outcome(i === 3 ? 'cancelled' : 'complete', i === 3 ? '' : `a${i}`) }));
    const items = pastTurnItems(turns, 2);
    expect(items).toEqual([
      { kind: 'notice', tone: 'dim', text: '… 2 earlier turns (gatechat history show)' },
      { kind: 'prompt', text: 'q2' },
      { kind: 'answer', text: 'a2' },
      { kind: 'prompt', text: 'q3' },
      { kind: 'notice', tone: 'warn', text: '⊘ cancelled' },
    ]);
    const state = initialChat({ showReasoning: false, banner: 'b', history: items });
    expect(state.items.map((i) => i.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pastTurnItems(turns)).toHaveLength(3 * 2 + 2);
    const called = { prompt: 'weather?', ...outcome('complete', '') };
    called.result.tool_calls = [{ id: 'c1', name: 'get_weather', arguments: {} }];
    expect(pastTurnItems([called]).slice(-2)).toEqual([
      { kind: 'tool', call: { id: 'c1', name: 'get_weather', arguments: {} } },
      { kind: 'notice', tone: 'dim', text: 'your next message is sent as the result of the tool call(s) above' },
    ]);
  });

  it('a compacted conversation shows its summary after the turns it covers (SPEC §17)', () => {
    const turns = Array.from({ length: 3 }, (_, i) => ({ prompt: `q${i}`, ...outcome('complete', `a${i}`) }));
    expect(pastTurnItems(turns, 20, { text: 'we spoke of kites', covered: 2 })).toEqual([
      { kind: 'prompt', text: 'q0' },
      { kind: 'answer', text: 'a0' },
      { kind: 'prompt', text: 'q1' },
      { kind: 'answer', text: 'a1' },
      { kind: 'notice', tone: 'dim', text: 'summary of turns 1–2, sent in their place (/compact): we spoke of kites' },
      { kind: 'prompt', text: 'q2' },
      { kind: 'answer', text: 'a2' },
    ]);
    // Covered turns scrolled out of the listing: the summary comes first.
    expect(pastTurnItems(turns, 1, { text: 'gist', covered: 1 }).slice(0, 2)).toEqual([
      { kind: 'notice', tone: 'dim', text: '… 2 earlier turns (gatechat history show)' },
      { kind: 'notice', tone: 'dim', text: 'summary of turn 1, sent in its place (/compact): gist' },
    ]);
  });
});
