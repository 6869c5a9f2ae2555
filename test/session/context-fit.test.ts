// Fitting the context window (SPEC §17), pure: which turns a request sends, what a context-length
// 400 says in each vendor's words, and the messages from the first turn kept.
import { describe, expect, it } from 'vitest';
import { fitContext, textTokens, type FitInput } from '../../src/session/context-fit.js';
import { toContextMessages } from '../../src/session/context-messages.js';
import { contextOverflow } from '../../src/protocol/context-length.js';
import type { ChatResult, ToolCall } from '../../src/protocol/events.js';
import type { FinishedTurn } from '../../src/session/types.js';

function turn(prompt: string, text: string, extra: { calls?: ToolCall[]; inputTokens?: number; results?: boolean; omitted?: number } = {}): FinishedTurn {
  const result: ChatResult = {
    text, reasoning: null, tool_calls: extra.calls ?? [], finish_reason: 'stop', raw_finish_reason: null,
    usage: { input_tokens: extra.inputTokens ?? null, output_tokens: 1 }, model: 'm', api: 'chat', cid: null,
  };
  return {
    prompt, result, status: 'complete',
    ...(extra.results ? { toolResults: [{ id: 'c1', name: 'f', ok: true, text: prompt }] } : {}),
    ...(extra.omitted ? { omittedTurns: extra.omitted } : {}),
  };
}

/** 400 characters each side: 2 × (100 + 4) = 208 tokens a turn. */
const TURN_TOKENS = 2 * textTokens('x'.repeat(400));
const turns = (n: number) => Array.from({ length: n }, (_, i) => turn(`${i}`.padEnd(400, 'x'), 'y'.repeat(400)));

const input = (over: Partial<FitInput>): FitInput => ({ turns: turns(10), system: undefined, prompt: 'new', attachments: [], toolResults: undefined, window: undefined, maxTokens: undefined, mode: { kind: 'auto' }, ...over });

describe('fitContext', () => {
  it('sends everything when the window is unknown or roomy, and leaves out the oldest turns when it is not', () => {
    expect(fitContext(input({})).omittedTurns).toBe(0);
    expect(fitContext(input({ window: 100_000 })).omittedTurns).toBe(0);
    // 1000 tokens of window, 250 kept for the answer (a quarter, no max tokens): 3 turns and the prompt.
    const fit = fitContext(input({ window: 1000 }));
    expect(fit).toMatchObject({ from: 7, omittedTurns: 7, omittedTokens: 7 * TURN_TOKENS, overflows: false });
    expect(fit.estimate).toBeLessThanOrEqual(750);
    // max tokens is reserved when given.
    expect(fitContext(input({ window: 1000, maxTokens: 100 })).omittedTurns).toBe(6);
  });

  it('never leaves out the system prompt or the new prompt: when even they overflow, the gateway decides', () => {
    const fit = fitContext(input({ window: 300, system: 's'.repeat(2000) }));
    expect(fit).toMatchObject({ from: 10, omittedTurns: 10, overflows: true });
    expect(toContextMessages(turns(10), 'new', [], undefined, fit.from)).toEqual([{ role: 'user', content: 'new' }]);
  });

  it('never a tool call without its result: the turn answering a call goes with it, and the last call stays', () => {
    const call: ToolCall = { id: 'c1', name: 'f', arguments: {} };
    const loop = [...turns(4), turn('ask', '', { calls: [call] }), turn('', 'y'.repeat(400), { results: true }), ...turns(2)];
    // Room for 3 turns: starting at the result turn (index 5) would orphan it; it starts at its call.
    const fit = fitContext(input({ turns: loop, window: 1000 }));
    expect(fit.from).not.toBe(5);
    expect([4, 6]).toContain(fit.from);
    const messages = toContextMessages(loop, 'new', [], undefined, fit.from);
    const ids = new Set(messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []));
    for (const m of messages) if (m.role === 'tool') expect(ids.has(m.tool_call_id!)).toBe(true);
    // The new prompt answers the last turn's calls: that turn is kept however small the window.
    const pending = [...turns(4), turn('ask', '', { calls: [call] })];
    const tight = fitContext(input({ turns: pending, window: 10, toolResults: [{ id: 'c1', name: 'f', ok: true, text: 'r' }] }));
    expect(tight.from).toBe(4);
  });

  it('--context full sends all; --context n keeps the last n (more only for a call and its result)', () => {
    expect(fitContext(input({ window: 300, mode: { kind: 'full' } })).omittedTurns).toBe(0);
    expect(fitContext(input({ mode: { kind: 'last', turns: 3 } }))).toMatchObject({ from: 7, omittedTurns: 7 });
    expect(fitContext(input({ mode: { kind: 'last', turns: 30 } })).omittedTurns).toBe(0);
    // n within a window that holds fewer: the window wins.
    expect(fitContext(input({ window: 600, mode: { kind: 'last', turns: 5 } })).omittedTurns).toBeGreaterThan(5);
  });

  it('scales the estimate up by the last answer\'s reported input tokens, never down', () => {
    const base = turns(10);
    // The last request sent 9 turns and its prompt: about 9 × 208 + 104 tokens by characters; the gateway said twice that.
    const estimated = 9 * TURN_TOKENS + textTokens('9'.padEnd(400, 'x'));
    const calibrated = base.map((t, i) => (i === 9 ? { ...t, result: { ...t.result, usage: { input_tokens: 2 * estimated, output_tokens: 1 } } } : t));
    const plain = fitContext(input({ window: 2000 }));
    const doubled = fitContext(input({ turns: calibrated, window: 2000 }));
    expect(doubled.omittedTurns).toBeGreaterThan(plain.omittedTurns);
    const halved = base.map((t, i) => (i === 9 ? { ...t, result: { ...t.result, usage: { input_tokens: Math.floor(estimated / 2), output_tokens: 1 } } } : t));
    expect(fitContext(input({ turns: halved, window: 2000 })).omittedTurns).toBe(plain.omittedTurns);
  });
});

describe('toContextMessages from a turn', () => {
  it('leaves out the turns before it and keeps the ids given to calls without one', () => {
    const noId: ToolCall = { id: '', name: 'f', arguments: {} };
    const all = [turn('q0', '', { calls: [noId] }), turn('r0', 'a0'), turn('q1', '', { calls: [noId] }), turn('r1', 'a1')];
    const whole = toContextMessages(all, 'q2');
    const fromTwo = toContextMessages(all, 'q2', [], undefined, 2);
    expect(fromTwo).toEqual(whole.slice(4));
    expect(fromTwo[1]!.tool_calls![0]!.id).toBe('call_2');
  });
});

describe('contextOverflow', () => {
  const info = (message: string, code: string | null = null) => ({ message, code });
  it.each([
    ["This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", 'context_length_exceeded', 8192],
    ["This endpoint's maximum context length is 131,072 tokens. However, you requested about 140000 tokens", null, 131072],
    ['prompt is too long: 208310 tokens > 200000 maximum', null, 200000],
    ['input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again', null, 200000],
    ['Please reduce the length of the messages or completion.', 'context_length_exceeded', null],
    ['The input is too long for the context window', null, null],
  ])('%s → %s', (message, code, window) => {
    expect(contextOverflow(400, info(message, code))).toEqual({ window });
  });

  it('is not fooled by other 400s or other statuses', () => {
    expect(contextOverflow(400, info("Unsupported parameter: 'max_tokens'"))).toBeNull();
    expect(contextOverflow(400, info('max_tokens: Field required'))).toBeNull();
    expect(contextOverflow(500, info("This model's maximum context length is 8192 tokens", 'context_length_exceeded'))).toBeNull();
  });
});
