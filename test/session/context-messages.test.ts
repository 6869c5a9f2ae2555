// The one rule for what earlier turns send back (SPEC §6), on turns as the session holds them.
import { describe, expect, it } from 'vitest';
import { toContextMessages } from '../../src/session/context-messages.js';
import type { ChatResult, ToolCall } from '../../src/protocol/events.js';
import type { FinishedTurn, TurnStatus } from '../../src/session/types.js';

function turn(prompt: string, text: string, status: TurnStatus = 'complete', toolCalls: ToolCall[] = []): FinishedTurn {
  const result: ChatResult = {
    text, reasoning: 'thought about it', tool_calls: toolCalls, finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
    raw_finish_reason: null, usage: { input_tokens: 1, output_tokens: 1 }, model: 'm', api: 'chat', cid: null,
  };
  return { prompt, result, status };
}

describe('toContextMessages', () => {
  it('sends cancelled and interrupted answers back as exactly their partial text, never reasoning', () => {
    expect(toContextMessages([turn('q1', 'a1'), turn('q2', 'half an ans', 'cancelled'), turn('q3', 'cut', 'interrupted')], 'q4')).toEqual([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'half an ans' },
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'cut' },
      { role: 'user', content: 'q4' },
    ]);
  });

  it('leaves out turns that got neither text nor tool calls, and never merges prompts', () => {
    const turns = [turn('q1', '', 'error'), turn('q1', 'a1'), turn('q2', '', 'error'), turn('q2', '\n ', 'cancelled'), turn('q2', '', 'interrupted')];
    expect(toContextMessages(turns, 'q2')).toEqual([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
    ]);
    expect(toContextMessages([turn('q', '', 'error'), turn('q', '', 'error')], 'q')).toEqual([{ role: 'user', content: 'q' }]);
  });

  it('answers every tool call of an answer with the prompt that follows it, even after a failed attempt', () => {
    const calls = [
      { id: 'c1', name: 'weather', arguments: { city: 'Oslo' } },
      { id: 'c2', name: 'weather', arguments: { city: 'Bergen' } },
    ];
    const turns = [turn('weather?', 'Looking.', 'complete', calls), turn('sunny', '', 'error')];
    expect(toContextMessages(turns, 'sunny')).toEqual([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: 'Looking.', tool_calls: calls },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'c2', content: 'sunny' },
    ]);
    // The results were given: the turn after is a user message again.
    expect(toContextMessages([...turns, turn('sunny', 'Nice.')], 'thanks').slice(-2)).toEqual([
      { role: 'assistant', content: 'Nice.' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('sends the files attached to a prompt that answers tool calls, in a user message after the results', () => {
    const calls = [{ id: 'c1', name: 'weather', arguments: { city: 'Oslo' } }];
    const files = [{ kind: 'text' as const, path: 'forecast.txt', text: 'rain' }];
    expect(toContextMessages([turn('weather?', 'Looking.', 'complete', calls)], 'see the file', files)).toEqual([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: 'Looking.', tool_calls: calls },
      { role: 'tool', tool_call_id: 'c1', content: 'see the file' },
      { role: 'user', content: '', attachments: files },
    ]);
    // And every later time that turn is sent as context.
    const answered = { ...turn('see the file', 'Rainy.'), attachments: files };
    expect(toContextMessages([turn('weather?', 'Looking.', 'complete', calls), answered], 'thanks').slice(2, 4)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'see the file' },
      { role: 'user', content: '', attachments: files },
    ]);
  });

  it('gives a call the gateway sent without an id one of its own, the same in the call and in its result', () => {
    // Gateways refuse tool_call_id "" (tool_use_id ""); some streams never send an id at all.
    const first = [{ id: '', name: 'weather', arguments: { city: 'Oslo' } }, { id: 'call_1', name: 'weather', arguments: { city: 'Bergen' } }];
    const second = [{ id: '', name: 'time', arguments: {} }];
    const turns = [turn('weather?', '', 'complete', first), turn('sunny', '', 'complete', second)];
    const expected = [
      { role: 'user', content: 'weather?' },
      // call_1 is taken by the gateway's own id: the numbering skips it.
      { role: 'assistant', content: '', tool_calls: [{ ...first[0], id: 'call_2' }, first[1]] },
      { role: 'tool', tool_call_id: 'call_2', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'assistant', content: '', tool_calls: [{ ...second[0], id: 'call_3' }] },
      { role: 'tool', tool_call_id: 'call_3', content: '12:00' },
    ];
    expect(toContextMessages(turns, '12:00')).toEqual(expected);
    // The same history sends the same ids every time (a resumed conversation, the next turn).
    expect(toContextMessages(turns, '12:00')).toEqual(expected);
    expect(toContextMessages([...turns, turn('12:00', 'Noon.')], 'thanks').slice(0, 6)).toEqual(expected.slice(0, 6));
    // What was recorded is not changed.
    expect(first[0].id).toBe('');
  });
});
