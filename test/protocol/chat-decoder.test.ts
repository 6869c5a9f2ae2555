// The Chat Completions stream decoder chunk by chunk (SPEC §5.4), and telling a context overflow from
// other refusals (SPEC §17).
import { describe, expect, it } from 'vitest';
import { createChatDecoder } from '../../src/protocol/openai-chat-decoder.js';
import { contextOverflow } from '../../src/protocol/context-length.js';
import type { ChatEvent } from '../../src/protocol/events.js';

function decode(datas: Array<Record<string, unknown> | string>) {
  const decoder = createChatDecoder();
  const events: ChatEvent[] = [];
  for (const d of datas) events.push(...decoder.push({ data: typeof d === 'string' ? d : JSON.stringify(d) }));
  const finished = decoder.finish();
  return { events: [...events, ...finished.events], termination: finished.termination, warnings: decoder.warnings, damage: decoder.damage };
}

const choice = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] });

describe('Chat Completions stream decoder', () => {
  it('an empty data line is nothing: no warning, no damage', () => {
    const out = decode(['', '  ']);
    expect(out.events).toEqual([]);
    expect(out.warnings).toEqual([]);
    expect(out.damage).toBeNull();
  });

  it('the model once, from the first chunk that names one', () => {
    const out = decode([{ model: 'a', ...choice({}) }, { model: 'b', ...choice({}) }]);
    expect(out.events).toEqual([{ type: 'model', model: 'a' }]);
  });

  it('a repeated finish chunk is one finish event; a changed one is another', () => {
    const out = decode([choice({}, 'stop'), choice({}, 'stop'), choice({}, 'length')]);
    expect(out.events).toEqual([
      { type: 'finish', reason: 'stop', raw: 'stop' },
      { type: 'finish', reason: 'length', raw: 'length' },
    ]);
  });

  it('empty reasoning and content are no events', () => {
    expect(decode([choice({ reasoning_content: '', reasoning: '', content: '' })]).events).toEqual([]);
  });

  it('tool call fragments without an index are calls of their own; arguments that are not strings are left out', () => {
    const out = decode([
      choice({ tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"a":' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: { not: 'text' } } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      choice({ tool_calls: [{ id: 'c2', function: { name: 'g', arguments: '{}' } }] }),
      '[DONE]',
    ]);
    expect(out.events).toEqual([
      { type: 'tool_call', id: 'c1', name: 'f', arguments: { a: 1 } },
      { type: 'tool_call', id: 'c2', name: 'g', arguments: {} },
      { type: 'finish', reason: 'tool_calls', raw: null },
    ]);
  });

  it('usage counts that are not numbers are unknown', () => {
    const out = decode([{ choices: [], usage: { prompt_tokens: '5', completion_tokens: null } }]);
    expect(out.events).toEqual([expect.objectContaining({ type: 'usage', input_tokens: null, output_tokens: null })]);
  });
});

describe('contextOverflow', () => {
  it('a 413 that says the prompt is too long is an overflow; other statuses never are', () => {
    expect(contextOverflow(413, { message: 'prompt is too long', code: null })).toEqual({ window: null });
    expect(contextOverflow(422, { message: 'prompt is too long', code: null })).toBeNull();
  });

  it('either overflow code is enough without the words', () => {
    expect(contextOverflow(400, { message: 'nope', code: 'string_above_max_length' })).toEqual({ window: null });
    expect(contextOverflow(400, { message: 'nope', code: 'context_length_exceeded' })).toEqual({ window: null });
    expect(contextOverflow(400, { message: 'nope', code: 'other' })).toBeNull();
  });
});

describe('Chat Completions decoder: what leaves no trace', () => {
  it('data after [DONE], and data that is no JSON object, give no events', () => {
    expect(decode(['[1,2]']).events).toEqual([]);
    expect(decode(['[DONE]', choice({ content: 'late' })]).events).toEqual([]);
  });

  it('a token count that is not a number is an unknown count', () => {
    const usage = decode([{ choices: [], usage: { prompt_tokens: '12', completion_tokens: '3' } }]).events.find((e) => e.type === 'usage');
    expect(usage).toMatchObject({ input_tokens: null, output_tokens: null });
  });
});
