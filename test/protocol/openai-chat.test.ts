// The Chat Completions body built from a conversation (SPEC §5.3) and a non-streamed answer read back.
import { describe, expect, it } from 'vitest';
import { buildChatRequest, parseChatResponse } from '../../src/protocol/openai-chat.js';
import type { ChatMessage, RequestOptions } from '../../src/protocol/events.js';

const request = (messages: ChatMessage[], patch: Partial<RequestOptions> = {}) =>
  buildChatRequest({ model: 'm', messages, maxTokens: 100, maxTokensField: 'max_tokens', stream: false, ...patch });

describe('buildChatRequest', () => {
  it('an assistant turn with an empty call list is plain text; an empty tools list is not sent', () => {
    const body = request([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', tool_calls: [] }], { tools: [] });
    expect(body.messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
    expect(body).not.toHaveProperty('tools');
  });
});

describe('parseChatResponse', () => {
  it('tool calls with odd ids, names and arguments: strings kept, the rest defaulted; objects as they are', () => {
    const events = parseChatResponse({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              'junk',
              { id: 7, function: { name: 3, arguments: { already: 'parsed' } } },
              { id: 'c2', function: { name: 'f', arguments: '{"a":1}' } },
              { id: 'c3', function: { name: 'g' } },
            ],
          },
          finish_reason: '',
        },
      ],
    });
    expect(events).toEqual([
      { type: 'tool_call', id: '', name: '', arguments: { already: 'parsed' } },
      { type: 'tool_call', id: 'c2', name: 'f', arguments: { a: 1 } },
      { type: 'tool_call', id: 'c3', name: 'g', arguments: {} },
    ]);
  });
});
