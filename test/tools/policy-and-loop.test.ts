// The approval rule (SPEC §15) as one pure function, and the loop's output cap.
import { describe, expect, it } from 'vitest';
import { decide, globMatches } from '../../src/tools/policy.js';
import { capOutput } from '../../src/tools/loop.js';

describe('decide', () => {
  it('runs what --allow names, asks on a terminal, denies in scripts', () => {
    expect(decide('fs__read_file', { allow: ['fs__read_*'], interactive: false })).toBe('run');
    expect(decide('fs__write_file', { allow: ['fs__read_*'], interactive: false })).toBe('deny');
    expect(decide('fs__write_file', { allow: ['fs__read_*'], interactive: true })).toBe('ask');
    expect(decide('anything', { allow: ['*'], interactive: false })).toBe('run');
    expect(decide('shout', { allow: [], interactive: true, sessionAllowed: new Set(['shout']) })).toBe('run');
    expect(decide('shout', { allow: [], interactive: false })).toBe('deny');
  });

  it('globs: * any run, ? one character, everything else literal', () => {
    expect(globMatches('a?c', 'abc')).toBe(true);
    expect(globMatches('a?c', 'abbc')).toBe(false);
    expect(globMatches('a.c', 'abc')).toBe(false);
    expect(globMatches('fs__*', 'fs__')).toBe(true);
    expect(globMatches('fs__*', 'xfs__a')).toBe(false);
  });
});

describe('capOutput', () => {
  it('keeps short results whole and cuts long ones at the limit with a note, never inside a character', () => {
    expect(capOutput('short', 10)).toBe('short');
    expect(capOutput('x'.repeat(20), 10)).toBe(`${'x'.repeat(10)}\n[gatechat: the tool's output was cut at 10 bytes of 20 (--tool-output-limit)]`);
    expect(capOutput('ééééé', 5).startsWith('éé\n')).toBe(true);
  });
});

import { buildChatRequest } from '../../src/protocol/openai-chat.js';
import { buildMessagesRequest } from '../../src/protocol/anthropic-messages.js';
import type { ChatMessage } from '../../src/protocol/events.js';

describe('reasoning inside a tool loop goes back with its calls (SPEC §15)', () => {
  const call = { id: 'c1', name: 'f', arguments: {} };
  const messages: ChatMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', tool_calls: [call], reasoning: { text: 'thought', blocks: [{ type: 'thinking', thinking: 'thought', signature: 'sig' }, { type: 'redacted_thinking', data: 'xyz' }] } },
    { role: 'tool', tool_call_id: 'c1', content: 'failed', is_error: true },
  ];
  const base = { model: 'm', maxTokensField: 'max_tokens' as const, stream: false };

  it('Chat Completions: reasoning_content on the message with tool_calls', () => {
    const body = buildChatRequest({ ...base, messages }) as any;
    expect(body.messages[1].reasoning_content).toBe('thought');
    expect(body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'failed' });
  });

  it('Messages: thinking and redacted_thinking blocks verbatim before tool_use; failures is_error', () => {
    const body = buildMessagesRequest({ ...base, messages }) as any;
    expect(body.messages[1].content.map((b: any) => b.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
    expect(body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'thought', signature: 'sig' });
    expect(body.messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: 'c1', content: 'failed', is_error: true });
  });
});
