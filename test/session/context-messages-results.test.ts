// A tool loop's follow-up turn (SPEC §6, §15): one result per call, by position, failures marked as
// errors, a result missing for a call answered with the prompt text; a replayed reasoning only on calls.
import { describe, expect, it } from 'vitest';
import { toContextMessages } from '../../src/session/context-messages.js';
import type { ChatResult, ToolCall } from '../../src/protocol/events.js';
import type { FinishedTurn, ToolResultEntry } from '../../src/session/types.js';

function turn(prompt: string, text: string, calls: ToolCall[] = [], extra: Partial<FinishedTurn> = {}): FinishedTurn {
  const result: ChatResult = {
    text, reasoning: null, tool_calls: calls, finish_reason: 'stop', raw_finish_reason: null,
    usage: { input_tokens: 1, output_tokens: 1 }, model: 'm', api: 'chat', cid: null,
  };
  return { prompt, result, status: 'complete', ...extra };
}

describe('toContextMessages: tool results', () => {
  it('sends each result by position, failed ones as errors, and the prompt for a call with no result', () => {
    const calls: ToolCall[] = [{ id: 'a', name: 'f', arguments: {} }, { id: 'b', name: 'f', arguments: {} }, { id: 'c', name: 'f', arguments: {} }];
    const results: ToolResultEntry[] = [{ id: 'a', name: 'f', ok: true, text: 'fine' }, { id: 'b', name: 'f', ok: false, text: 'broke' }];
    const replay = { text: 'why', blocks: [] };
    const turns = [turn('go', '', calls, { replay }), turn('loop', 'done', [], { toolResults: results })];
    expect(toContextMessages(turns, 'next')).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: calls, reasoning: replay },
      { role: 'tool', tool_call_id: 'a', content: 'fine' },
      { role: 'tool', tool_call_id: 'b', content: 'broke', is_error: true },
      { role: 'tool', tool_call_id: 'c', content: 'loop' },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'next' },
    ]);
  });

  it('answers the calls once: the prompt after the answering one is a plain user message', () => {
    const calls: ToolCall[] = [{ id: 'a', name: 'f', arguments: {} }];
    const turns = [turn('go', '', calls), turn('r', 'ok'), turn('q2', 'a2')];
    expect(toContextMessages(turns, 'q3').filter((m) => m.role === 'tool')).toEqual([{ role: 'tool', tool_call_id: 'a', content: 'r' }]);
  });
});
