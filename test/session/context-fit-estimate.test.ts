// Fitting the context window (SPEC §17): the estimate to the token, what is sent again, which start
// keeps every tool call with its result, and the calibration from the gateway's reported input.
import { describe, expect, it } from 'vitest';
import { fitContext, isSent, textTokens, type FitInput, type FitTurn } from '../../src/session/context-fit.js';
import type { Attachment, ChatResult, ToolCall } from '../../src/protocol/events.js';
import type { ToolResultEntry } from '../../src/session/types.js';

function turn(prompt: string, text: string, extra: { calls?: ToolCall[]; inputTokens?: number | null; results?: ToolResultEntry[]; omitted?: number; attachments?: Attachment[] } = {}): FitTurn {
  const result: ChatResult = {
    text, reasoning: null, tool_calls: extra.calls ?? [], finish_reason: 'stop', raw_finish_reason: null,
    usage: { input_tokens: extra.inputTokens ?? null, output_tokens: 1 }, model: 'm', api: 'chat', cid: null,
  };
  return {
    prompt, result,
    ...(extra.results ? { toolResults: extra.results } : {}),
    ...(extra.omitted ? { omittedTurns: extra.omitted } : {}),
    ...(extra.attachments ? { attachments: extra.attachments } : {}),
  };
}

const input = (over: Partial<FitInput>): FitInput => ({ turns: [], system: undefined, prompt: 'new', attachments: [], toolResults: undefined, window: undefined, maxTokens: undefined, mode: { kind: 'full' }, ...over });
const estimate = (over: Partial<FitInput>) => fitContext(input(over)).estimate;

/** A plain turn of 400 characters each side: 2 × (100 + 4) = 208 tokens. */
const PLAIN = 208;
const plain = (i: number) => turn(`${i}`.padEnd(400, 'x'), 'y'.repeat(400));
const NEW = textTokens('new'); // 5

const text = (path: string, body: string): Attachment => ({ kind: 'text', path, text: body });
const image: Attachment = { kind: 'image', path: 'a.png', mime: 'image/png', data: '', bytes: 10_000 };
const pdf = (bytes: number): Attachment => ({ kind: 'pdf', path: 'a.pdf', data: '', bytes });

describe('the estimate', () => {
  it('counts a text file as its text and its name, an image flat, a PDF by its bytes', () => {
    expect(textTokens('')).toBe(4);
    expect(textTokens('abcde')).toBe(6);
    expect(estimate({})).toBe(NEW);
    expect(estimate({ attachments: [text('notes.txt', 'x'.repeat(400))] })).toBe(NEW + 104 + textTokens('notes.txt'));
    expect(estimate({ attachments: [image] })).toBe(NEW + 1600);
    expect(estimate({ attachments: [pdf(6400)] })).toBe(NEW + 100);
    expect(estimate({ attachments: [pdf(6401)] })).toBe(NEW + 101);
    expect(estimate({ attachments: [image, pdf(64), text('a', '')] })).toBe(NEW + 1600 + 1 + 4 + 5);
    // An earlier turn's files count too.
    expect(estimate({ turns: [turn('q', 'a', { attachments: [image] })] })).toBe(NEW + 5 + 5 + 1600);
  });

  it('counts tool results instead of the prompt, and a call by its name and arguments', () => {
    const results: ToolResultEntry[] = [{ id: 'c1', name: 'f', ok: true, text: 'aaaa' }, { id: 'c2', name: 'f', ok: true, text: 'b'.repeat(8) }];
    expect(estimate({ toolResults: results })).toBe(5 + 6);
    expect(estimate({ toolResults: results, attachments: [image] })).toBe(5 + 6 + 1600);
    expect(estimate({ toolResults: [] })).toBe(NEW);
    const calls: ToolCall[] = [
      { id: 'c1', name: 'lookup', arguments: { q: 'abcdefgh' } }, // '{"q":"abcdefgh"}': 16 characters
      { id: 'c2', name: 'f' } as ToolCall, // no arguments: '{}'
    ];
    // The call turn: prompt 'ask' (5), empty answer (4), calls (6 + 8) + (5 + 5).
    expect(estimate({ turns: [turn('ask', '', { calls })] })).toBe(NEW + 5 + 4 + 6 + 8 + 5 + 5);
    // The turn that answered them: its results, not its (empty) prompt.
    expect(estimate({ turns: [turn('', 'ok', { results })] })).toBe(NEW + 11 + 5);
  });

  it('leaves out turns with nothing to send again, and counts only those as omitted', () => {
    expect(isSent(turn('q', '  \n'))).toBe(false);
    expect(isSent(turn('q', ' a '))).toBe(true);
    expect(isSent(turn('q', '', { calls: [{ id: 'c', name: 'f', arguments: {} }] }))).toBe(true);
    const turns = [plain(0), turn('failed', '  '), plain(2), plain(3)];
    expect(estimate({ turns })).toBe(NEW + 3 * PLAIN);
    // Room for one turn: the two before it are left out, the empty one is not counted.
    expect(fitContext(input({ turns, mode: { kind: 'auto' }, window: 1000, maxTokens: 1000 - (NEW + PLAIN) }))).toMatchObject({ from: 3, omittedTurns: 2, omittedTokens: 2 * PLAIN, estimate: NEW + PLAIN });
    // Room for two: it starts at the turn after the empty one.
    expect(fitContext(input({ turns, mode: { kind: 'auto' }, window: 1000, maxTokens: 1000 - (NEW + 2 * PLAIN) }))).toMatchObject({ from: 2, omittedTurns: 1 });
  });

  it('sends as much as fits exactly into the window less the answer', () => {
    const turns = Array.from({ length: 10 }, (_, i) => plain(i));
    // 3 turns and the prompt: 629 tokens, just what is left of 729 with 100 kept for the answer.
    expect(fitContext(input({ turns, mode: { kind: 'auto' }, window: 729, maxTokens: 100 }))).toMatchObject({ from: 7, omittedTurns: 7, estimate: NEW + 3 * PLAIN, overflows: false });
    expect(fitContext(input({ turns, mode: { kind: 'auto' }, window: 728, maxTokens: 100 }))).toMatchObject({ from: 8, omittedTurns: 8, estimate: NEW + 2 * PLAIN });
  });
});

describe('tool calls and their results stay together', () => {
  const call: ToolCall = { id: 'c1', name: 'f', arguments: {} };
  const answered: ToolResultEntry[] = [{ id: 'c1', name: 'f', ok: true, text: '' }];

  it('never starts at a turn that answers a call left out', () => {
    // 4 plain, a call turn (19), its result turn (4 + 104 = 108), 2 plain; the prompt 5.
    const loop = [plain(0), plain(1), plain(2), plain(3), turn('ask', '', { calls: [call] }), turn('', 'y'.repeat(400), { results: answered }), plain(6), plain(7)];
    // 540 left: from the result turn would be 529, from its call 548: only the last two turns go.
    expect(fitContext(input({ turns: loop, mode: { kind: 'auto' }, window: 720 }))).toMatchObject({ from: 6, omittedTurns: 6, estimate: NEW + 2 * PLAIN });
    expect(fitContext(input({ turns: loop, mode: { kind: 'auto' }, window: 740 }))).toMatchObject({ from: 4, omittedTurns: 4, estimate: NEW + 19 + 108 + 2 * PLAIN });
  });

  it('--context n keeps more turns when the last n would split calls from their results', () => {
    const chain = [plain(0), plain(1), plain(2), turn('ask', '', { calls: [call] }), turn('', '', { calls: [call], results: answered }), turn('', '', { calls: [call], results: answered })];
    // The last turn made calls (the new prompt answers them): no start after index 3 keeps every pair.
    expect(fitContext(input({ turns: chain, mode: { kind: 'last', turns: 1 } }))).toMatchObject({ from: 3, omittedTurns: 3 });
    expect(fitContext(input({ turns: chain, mode: { kind: 'last', turns: 4 } }))).toMatchObject({ from: 2, omittedTurns: 2 });
  });
});

describe('calibration from the reported input', () => {
  const ten = () => Array.from({ length: 10 }, (_, i) => plain(i));
  const reportOn = (turns: FitTurn[], k: number, inputTokens: number | null | undefined, omitted?: number): FitTurn[] =>
    turns.map((t, i) => (i === k ? { ...t, ...(omitted ? { omittedTurns: omitted } : {}), result: { ...t.result, usage: { input_tokens: inputTokens as number | null, output_tokens: 1 } } } : t));
  const full = NEW + 10 * PLAIN;

  it('scales by the last report, what that request sent (its omitted turns and empty ones left out, the system prompt in)', () => {
    // The last turn's request: 9 turns and its own prompt (104), estimated 1976; reported twice that.
    expect(estimate({ turns: reportOn(ten(), 9, 2 * (9 * PLAIN + 104)) })).toBe(2 * full);
    // It left out 5 turns: 4 turns and its prompt.
    expect(estimate({ turns: reportOn(ten(), 9, 3 * (4 * PLAIN + 104), 5) })).toBe(3 * full);
    // An empty turn before it was not sent then either.
    const withEmpty = [...ten().slice(0, 9), turn('failed', ''), plain(10)];
    expect(estimate({ turns: reportOn(withEmpty, 10, 2 * (9 * PLAIN + 104)) })).toBe(2 * full);
    // With a system prompt, which both requests carry.
    const system = 's'.repeat(400);
    expect(estimate({ system, turns: reportOn(ten(), 9, 2 * (104 + 9 * PLAIN + 104)) })).toBe(2 * (104 + full));
  });

  it('looks back past turns with no figure, or a zero one, to the first turn', () => {
    const first = reportOn(ten(), 0, 2 * 104);
    expect(estimate({ turns: first })).toBe(2 * full);
    expect(estimate({ turns: reportOn(first, 9, 0) })).toBe(2 * full);
    expect(estimate({ turns: reportOn(first, 9, undefined) })).toBe(2 * full);
    expect(estimate({ turns: reportOn(first, 9, -5) })).toBe(2 * full);
    // Never down, at most 8 times.
    expect(estimate({ turns: reportOn(ten(), 9, 10) })).toBe(full);
    expect(estimate({ turns: reportOn(ten(), 9, 100 * 2000) })).toBe(8 * full);
  });
});
