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
});
