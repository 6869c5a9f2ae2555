import { describe, expect, it } from 'vitest';
import { buildMessagesRequest } from '../../src/protocol/anthropic-messages.js';
import type { ChatMessage, RequestOptions, ToolDefinition } from '../../src/protocol/events.js';
import { protocolFor } from '../../src/protocol/index.js';
import { buildChatRequest } from '../../src/protocol/openai-chat.js';

const base: RequestOptions = {
  model: 'gpt-x',
  messages: [{ role: 'user', content: 'hi' }],
  maxTokensField: 'max_tokens',
  stream: false,
};

const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'now' } },
];

const toolHistory: ChatMessage[] = [
  { role: 'user', content: 'weather and time?' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: 'c1', name: 'weather', arguments: { city: 'Oslo' } },
      { id: 'c2', name: 'now', arguments: {} },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'rain' },
  { role: 'tool', tool_call_id: 'c2', content: '12:00' },
];

describe('buildChatRequest', () => {
  it('builds the minimal non-streaming body: no temperature, no max tokens, no stream_options', () => {
    const body = buildChatRequest(base);
    expect(body).toEqual({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(Object.keys(body)).toEqual(['model', 'messages', 'stream']);
  });

  it('adds system first, temperature, max tokens under the chosen field, stream_options and tools', () => {
    const body = buildChatRequest({ ...base, system: 'be brief', temperature: 0, maxTokens: 100, maxTokensField: 'max_completion_tokens', stream: true, tools });
    expect(body).toEqual({
      model: 'gpt-x',
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }],
      temperature: 0,
      max_completion_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
      tools,
    });
    expect(Object.keys(body).slice(0, 2)).toEqual(['model', 'messages']);
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('merges --options fields last, except model, messages and stream, which stay ours', () => {
    const extraBody = { model: 'other', messages: [], stream: true, top_p: 0.5, temperature: 1 };
    const body = buildChatRequest({ ...base, temperature: 0, extraBody });
    expect(body).toEqual({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }], temperature: 1, stream: false, top_p: 0.5 });
    expect(buildMessagesRequest({ ...base, extraBody })).toEqual({
      model: 'gpt-x', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }], stream: false, top_p: 0.5, temperature: 1,
    });
  });

  it('sends max_tokens when that is the field', () => {
    expect(buildChatRequest({ ...base, maxTokens: 5 })).toMatchObject({ max_tokens: 5 });
  });

  it('encodes tool calls with JSON-string arguments and tool results with tool_call_id', () => {
    const body = buildChatRequest({ ...base, messages: [...toolHistory, { role: 'assistant', content: 'x', tool_calls: [{ id: 'c3', name: 'raw', arguments: '{"bad' }] }] });
    expect(body.messages).toEqual([
      { role: 'user', content: 'weather and time?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'c2', type: 'function', function: { name: 'now', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'rain' },
      { role: 'tool', tool_call_id: 'c2', content: '12:00' },
      { role: 'assistant', content: 'x', tool_calls: [{ id: 'c3', type: 'function', function: { name: 'raw', arguments: '{"bad' } }] },
    ]);
  });
});

describe('buildMessagesRequest', () => {
  it('always sends max_tokens (default 4096) and the stream boolean', () => {
    const body = buildMessagesRequest({ ...base, model: 'claude-x' });
    expect(body).toEqual({ model: 'claude-x', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(Object.keys(body)).toEqual(['model', 'max_tokens', 'messages', 'stream']);
  });

  it('names the limit max_tokens whatever the Chat Completions field setting', () => {
    const body = buildMessagesRequest({ ...base, maxTokens: 64, maxTokensField: 'max_completion_tokens', stream: true, temperature: 0.5 });
    expect(body).toEqual({ model: 'gpt-x', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], temperature: 0.5, stream: true });
  });

  it('moves opts.system and system-role messages to the top-level system', () => {
    const body = buildMessagesRequest({ ...base, system: 'first', messages: [{ role: 'system', content: 'second' }, { role: 'user', content: 'hi' }] });
    expect(body.system).toBe('first\n\nsecond');
    expect(body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('converts tools to {name, description, input_schema}', () => {
    expect(buildMessagesRequest({ ...base, tools }).tools).toEqual([
      { name: 'weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  it('turns tool calls into tool_use blocks and tool results into one user turn of tool_result blocks', () => {
    const history: ChatMessage[] = [...toolHistory];
    history[1] = { ...toolHistory[1], content: 'Checking.' };
    expect(buildMessagesRequest({ ...base, messages: [...history, { role: 'assistant', content: 'Rain at noon.' }] }).messages).toEqual([
      { role: 'user', content: 'weather and time?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'c2', name: 'now', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'rain' },
          { type: 'tool_result', tool_use_id: 'c2', content: '12:00' },
        ],
      },
      { role: 'assistant', content: 'Rain at noon.' },
    ]);
  });

  it('gives a call id the Messages interface refuses (Kimi\'s functions.name:0) a valid one, in its tool_use and its tool_result', () => {
    // tool_use ids must match ^[a-zA-Z0-9_-]+$; a conversation begun over Chat Completions can carry others.
    const body = buildMessagesRequest({
      ...base,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'functions.weather:0', name: 'weather', arguments: {} }, { id: 'functions_weather_0', name: 'weather', arguments: {} }, { id: 'call_ok-1', name: 'now', arguments: {} }] },
        { role: 'tool', tool_call_id: 'functions.weather:0', content: 'rain' },
        { role: 'tool', tool_call_id: 'functions_weather_0', content: 'sun' },
        { role: 'tool', tool_call_id: 'call_ok-1', content: '12:00' },
      ],
    });
    const [, assistant, results] = body.messages as Array<{ content: Array<{ id?: string; tool_use_id?: string }> }>;
    const ids = assistant.content.map((block) => block.id);
    // A valid id is kept; the others become valid and stay distinct from every other id of the request.
    expect(ids[2]).toBe('call_ok-1');
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(new Set(ids).size).toBe(3);
    expect(results.content.map((block) => block.tool_use_id)).toEqual(ids);
  });

  it('omits an empty text block before tool_use and coerces string arguments to an object', () => {
    const body = buildMessagesRequest({ ...base, messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'a', name: 'n', arguments: '{"k":1}' }, { id: 'b', name: 'n', arguments: 'not json' }] }] });
    expect(body.messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'n', input: { k: 1 } }, { type: 'tool_use', id: 'b', name: 'n', input: {} }] },
    ]);
  });
});

describe('protocolFor', () => {
  it('maps each interface to its path and functions', () => {
    const chat = protocolFor('chat');
    const messages = protocolFor('messages');
    expect(chat.path).toBe('/chat/completions');
    expect(messages.path).toBe('/messages');
    expect(chat.buildRequest(base)).toEqual(buildChatRequest(base));
    expect(messages.buildRequest(base)).toEqual(buildMessagesRequest(base));
    expect(chat.createDecoder()).not.toBe(chat.createDecoder());
    expect(messages.parseResponse({ type: 'message', model: 'c', content: [{ type: 'text', text: 'x' }], stop_reason: 'end_turn' })).toEqual([
      { type: 'model', model: 'c' },
      { type: 'text', delta: 'x' },
      { type: 'finish', reason: 'stop', raw: 'end_turn' },
    ]);
  });
});
