// The Messages interface (SPEC §5.3): the request body built from a chat-form conversation, and a
// non-streamed answer turned into the events a stream would have produced.
import { describe, expect, it } from 'vitest';
import { buildMessagesRequest, parseMessagesResponse } from '../../src/protocol/anthropic-messages.js';
import type { ChatMessage, RequestOptions, ToolCall } from '../../src/protocol/events.js';

const request = (messages: ChatMessage[], patch: Partial<RequestOptions> = {}): Record<string, unknown> =>
  buildMessagesRequest({ model: 'm', messages, maxTokens: 100, maxTokensField: 'max_tokens', stream: false, ...patch });

const call = (id: string, args: unknown = {}, name = 'get_weather'): ToolCall => ({ id, name, arguments: args });
const askedTools = (calls: ToolCall[], extra: Partial<ChatMessage> = {}): ChatMessage => ({ role: 'assistant', content: '', tool_calls: calls, ...extra });
const result = (id: string | undefined, content: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({ role: 'tool', tool_call_id: id, content, ...extra });

describe('buildMessagesRequest', () => {
  it('tool calls: arguments as an object (a JSON string parsed, anything else {}), results merged into one user turn', () => {
    const body = request([
      { role: 'user', content: 'weather?' },
      askedTools([call('a', { city: 'Oslo' }), call('b', '{"city":"Rome"}'), call('c', '[1,2]'), call('d', 'not json'), call('e', 7)]),
      result('a', 'cold'),
      result('b', 'warm', { is_error: true }),
      result('c', 'x'),
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'b', name: 'get_weather', input: { city: 'Rome' } },
          { type: 'tool_use', id: 'c', name: 'get_weather', input: {} },
          { type: 'tool_use', id: 'd', name: 'get_weather', input: {} },
          { type: 'tool_use', id: 'e', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'cold' },
          { type: 'tool_result', tool_use_id: 'b', content: 'warm', is_error: true },
          { type: 'tool_result', tool_use_id: 'c', content: 'x' },
        ],
      },
    ]);
  });

  it('ids the Messages interface refuses are rewritten, kept unique, and the same for a call and its result', () => {
    const body = request([
      { role: 'user', content: 'q' },
      askedTools([call('functions.get_weather:0'), call('functions_get_weather_0'), call('functions.get:weather:0'), call('。')]),
      result('functions.get_weather:0', 'r1'),
      result('functions_get_weather_0', 'r2'),
      result('functions.get:weather:0', 'r3'),
      result('。', 'r4'),
      result(undefined, 'r5'),
    ]);
    const [, asked, answered] = body.messages as Array<{ content: Array<{ id?: string; tool_use_id?: string }> }>;
    expect(asked!.content.map((b) => b.id)).toEqual(['functions_get_weather_0', 'functions_get_weather_0_2', 'functions_get_weather_0_3', '_']);
    expect(answered!.content.map((b) => b.tool_use_id)).toEqual(['functions_get_weather_0', 'functions_get_weather_0_2', 'functions_get_weather_0_3', '_', 'toolu']);
  });

  it('an assistant turn with its text and thinking blocks before the calls; one without calls is plain text', () => {
    const thinking = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    const body = request([
      { role: 'user', content: 'q' },
      askedTools([call('a')], { content: 'Let me look.', reasoning: { text: 'hmm', blocks: [thinking] } }),
      result('a', 'r'),
      { role: 'assistant', content: 'done', tool_calls: [] },
    ]);
    const turns = body.messages as Array<{ role: string; content: unknown }>;
    expect(turns[1]!.content).toEqual([thinking, { type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'a', name: 'get_weather', input: {} }]);
    expect(turns[3]).toEqual({ role: 'assistant', content: 'done' });
  });

  it('a tool result first in the history is a user turn of its own', () => {
    expect(request([result('a', 'r')]).messages).toEqual([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'r' }] }]);
  });

  it('--cache: the system text joined as without it, one part marked for caching', () => {
    const body = request([{ role: 'system', content: 'two' }, { role: 'user', content: 'q' }], { system: 'one', cache: true });
    expect(body.system).toEqual([{ type: 'text', text: 'one\n\ntwo', cache_control: { type: 'ephemeral' } }]);
  });

  it('a tool result after a user turn of text starts its own turn', () => {
    const body = request([{ role: 'user', content: 'q' }, result('a', 'r')]);
    expect(body.messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'r' }] },
    ]);
  });

  it('a tool result after a user turn of content parts that are not all results starts its own turn', () => {
    const body = request([{ role: 'user', content: 'see', attachments: [{ kind: 'image', path: 'a.png', mime: 'image/png', data: 'AAAA', bytes: 3 }] }, result('a', 'r')]);
    const turns = body.messages as Array<{ role: string; content: unknown[] }>;
    expect(turns).toHaveLength(2);
    expect(turns[1]!.content).toEqual([{ type: 'tool_result', tool_use_id: 'a', content: 'r' }]);
  });

  it('system text from the options and the history joined by a blank line; tools converted, an empty list left out', () => {
    const body = request([{ role: 'system', content: 'from history' }, { role: 'user', content: 'q' }], {
      system: 'from options',
      tools: [
        { type: 'function', function: { name: 'plain' } },
        { type: 'function', function: { name: 'described', description: 'does things', parameters: { type: 'object', properties: { a: { type: 'string' } } } } },
      ],
    });
    expect(body.system).toBe('from options\n\nfrom history');
    // Strict: a tool without a description has no description key at all.
    expect(body.tools).toStrictEqual([
      { name: 'plain', input_schema: { type: 'object', properties: {} } },
      { name: 'described', description: 'does things', input_schema: { type: 'object', properties: { a: { type: 'string' } } } },
    ]);
    expect(request([{ role: 'user', content: 'q' }], { tools: [] })).not.toHaveProperty('tools');
    expect(request([{ role: 'user', content: 'q' }])).not.toHaveProperty('system');
  });
});

describe('parseMessagesResponse', () => {
  it('a body that is not an object, or an error (by type or by an error field), is one error event', () => {
    expect(parseMessagesResponse('nope')).toEqual([{ type: 'error', code: null, message: 'response body is not a JSON object', status: null }]);
    expect(parseMessagesResponse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toEqual([
      { type: 'error', code: 'overloaded_error', message: 'Overloaded', status: null },
    ]);
    expect(parseMessagesResponse({ error: { type: 'api_error', message: 'boom' } })).toEqual([{ type: 'error', code: 'api_error', message: 'boom', status: null }]);
    expect(parseMessagesResponse({ type: 'message', error: null, content: [{ type: 'text', text: 'fine' }] })).toEqual([{ type: 'text', delta: 'fine' }]);
    expect(parseMessagesResponse({ type: 'error', message: 'Overloaded' })).toEqual([{ type: 'error', code: 'error', message: 'Overloaded', status: null }]);
  });

  it('blocks in order: text (empty left out), thinking with its block, redacted thinking, tool calls; the rest skipped', () => {
    const events = parseMessagesResponse({
      type: 'message',
      model: 'claude-x',
      content: [
        'not a block',
        null,
        { type: 'web_search_tool_result', text: 'not the answer', thinking: 'not reasoning' },
        { type: 'text', text: '' },
        { type: 'text', text: 7 },
        { type: 'thinking', thinking: 'pondering', signature: 'sig' },
        { type: 'thinking', thinking: '' },
        { type: 'thinking', thinking: 3 },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'server_tool_use', id: 's', name: 'web_search', input: {} },
        { type: 'text', text: 'Answer.' },
        { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
        { type: 'tool_use', id: 5, name: null },
      ],
      stop_reason: 'tool_use',
    });
    expect(events).toEqual([
      { type: 'model', model: 'claude-x' },
      { type: 'reasoning', delta: 'pondering' },
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: 'pondering', signature: 'sig' } },
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'reasoning', delta: '', block: { type: 'redacted_thinking', data: 'opaque' } },
      { type: 'text', delta: 'Answer.' },
      { type: 'tool_call', id: 't1', name: 'f', arguments: { a: 1 } },
      { type: 'tool_call', id: '', name: '', arguments: {} },
      { type: 'finish', reason: 'tool_calls', raw: 'tool_use' },
    ]);
  });

  it('no model, no content list, no stop reason: no events for them', () => {
    expect(parseMessagesResponse({ type: 'message', model: '', content: 'text?', stop_reason: '' })).toEqual([]);
  });
});
