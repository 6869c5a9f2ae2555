import { describe, expect, it } from 'vitest';
import type { Api, ChatEvent } from '../../src/protocol/events.js';
import { createMessagesDecoder } from '../../src/protocol/anthropic-messages.js';
import { createChatDecoder, parseChatResponse } from '../../src/protocol/openai-chat.js';
import { parseMessagesResponse } from '../../src/protocol/anthropic-messages.js';
import { fold, replayBytes, sse } from './replay.js';

const chunk = (obj: unknown): string => `data: ${JSON.stringify(obj)}\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null): string =>
  chunk({ model: 'm', choices: [{ index: 0, delta: d, finish_reason: finish }] });
const msg = (type: string, rest: Record<string, unknown> = {}): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...rest })}\n\n`;

const MESSAGE_START = msg('message_start', {
  message: { model: 'claude-x', usage: { input_tokens: 5, output_tokens: 1 } },
});
const textBlock = (text: string): string =>
  msg('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
  msg('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }) +
  msg('content_block_stop', { index: 0 });

function textOf(events: ChatEvent[]): string {
  return fold(events, 'chat', 'complete').text;
}

describe.each<[Api, (text: string) => string, string]>([
  ['chat', (t) => delta({ content: t }), 'data: [DONE]\n\n'],
  ['messages', (t) => MESSAGE_START + textBlock(t), msg('message_stop')],
])('%s decoder robustness', (api, text, end) => {
  it('skips a malformed data line with a warning and keeps decoding', () => {
    const r = replayBytes(api, sse(text('a'), 'data: {"broken": \n\n', text('b'), end));
    expect(textOf(r.events)).toBe('ab');
    expect(r.termination).toBe('end_marker');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/malformed/);
    // What it carried is lost: the client reports the stream as damaged, never complete.
    expect(r.damage).toEqual({ count: 1, sample: '{"broken": ' });
  });

  it('skips JSON that is not an object with a warning', () => {
    const r = replayBytes(api, sse(text('a'), 'data: 42\n\n', 'data: null\n\n', end));
    expect(textOf(r.events)).toBe('a');
    expect(r.warnings).toHaveLength(2);
    // Valid JSON of the wrong shape lost nothing a gateway meant as the answer.
    expect(r.damage).toBeNull();
  });

  it('ignores unknown event types and fields', () => {
    const unknown = 'event: mystery\ndata: {"type":"mystery_event","x":1}\n\n';
    const r = replayBytes(api, sse(unknown, text('hi'), unknown, end));
    expect(textOf(r.events)).toBe('hi');
    expect(r.termination).toBe('end_marker');
    expect(r.events.some((e) => e.type === 'error')).toBe(false);
  });

  it('carries a 1 MiB single text delta intact', () => {
    const big = 'é'.repeat(512 * 1024);
    const r = replayBytes(api, sse(text(big), end));
    expect(textOf(r.events)).toBe(big);
  });

  it('accepts data: without a space and keep-alive comments anywhere', () => {
    const noSpace = text('x').replace(/data: /g, 'data:');
    const r = replayBytes(api, sse(': keep-alive\n\n', noSpace, ': OPENROUTER PROCESSING\n\n', end, ': bye\n\n'));
    expect(textOf(r.events)).toBe('x');
    expect(r.termination).toBe('end_marker');
  });

  it('reports an empty body as truncated, not as a throw', () => {
    const r = replayBytes(api, new Uint8Array());
    expect(r.events).toEqual([]);
    expect(r.termination).toBe('truncated');
  });

  it('reports a body cut mid-answer as truncated', () => {
    const r = replayBytes(api, sse(text('partial')));
    expect(textOf(r.events)).toBe('partial');
    expect(r.termination).toBe('truncated');
  });

  it('keeps at most 50 warnings and one running count of the rest; damage counts every loss', () => {
    const garbage = Array.from({ length: 53 }, (_, i) => `data: {bad ${i}\n\n`);
    const r = replayBytes(api, sse(text('a'), ...garbage, end));
    expect(textOf(r.events)).toBe('a');
    expect(r.warnings).toHaveLength(51);
    expect(r.warnings[49]).toBe('skipped malformed SSE data (not JSON): {bad 49');
    expect(r.warnings[50]).toBe('(3 more warnings not shown)');
    expect(r.damage).toEqual({ count: 53, sample: '{bad 0' });
  });

  it('cuts a skipped payload to 80 characters in its warning', () => {
    const long = `{${'x'.repeat(100)}`;
    const r = replayBytes(api, sse(`data: ${long}\n\n`, 'data: [1,2]\n\n', text('a'), end));
    expect(r.warnings).toEqual([
      `skipped malformed SSE data (not JSON): ${long.slice(0, 80)}…`,
      'skipped SSE data that is not a JSON object: [1,2]',
    ]);
    expect(r.damage).toEqual({ count: 1, sample: `${long.slice(0, 80)}…` });
    // Exactly 80 is not cut.
    const eighty = `{${'y'.repeat(79)}`;
    expect(replayBytes(api, sse(`data: ${eighty}\n\n`, end)).warnings).toEqual([`skipped malformed SSE data (not JSON): ${eighty}`]);
  });

  it('never throws on hostile payloads', () => {
    const decoder = api === 'chat' ? createChatDecoder() : createMessagesDecoder();
    const payloads = [
      '{}', '[]', '"str"', 'true', '{"choices":null}', '{"choices":[null,1,"x"]}', '{"choices":[{"delta":null}]}',
      '{"choices":[{"delta":{"tool_calls":[null,{"index":"a"},{"function":5}]}}]}', '{"type":"content_block_delta"}',
      '{"type":"content_block_start","index":0}', '{"type":"content_block_stop","index":9}', '{"type":"message_delta","delta":7}',
      '{"type":"message_start","message":{"usage":"x"}}', '{"usage":[1]}', '\u0000', '',
    ];
    for (const data of payloads) expect(() => decoder.push({ data })).not.toThrow();
    expect(() => decoder.finish()).not.toThrow();
  });
});

describe('chat decoder specifics', () => {
  it('keeps usage when a later chunk says usage: null, and reads usage from choices: [] chunks', () => {
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    const r = replayBytes('chat', sse(delta({ content: 'ok' }, 'stop'), chunk({ choices: [], usage }), chunk({ choices: [], usage: null }), 'data: [DONE]\n\n'));
    expect(fold(r.events, 'chat', 'complete').usage).toEqual({ input_tokens: 3, output_tokens: 4, cache_read_tokens: null, cache_write_tokens: null });
  });

  it('keys tool calls by index, sets ids and names once and concatenates arguments', () => {
    const tc = (index: number, id: string | undefined, name: string | undefined, args: string): string =>
      delta({ tool_calls: [{ index, ...(id === undefined ? {} : { id }), type: 'function', function: { ...(name === undefined ? {} : { name }), arguments: args } }] });
    const r = replayBytes('chat', sse(
      tc(2, 'b', 'second', '{"y"'), tc(1, 'a', 'first', ''), tc(2, '', '', ':2}'), tc(1, undefined, 'first', '{"x":1}'),
      delta({}, 'tool_calls'), 'data: [DONE]\n\n',
    ));
    const calls = r.events.filter((e) => e.type === 'tool_call');
    expect(calls).toEqual([
      { type: 'tool_call', id: 'a', name: 'first', arguments: { x: 1 } },
      { type: 'tool_call', id: 'b', name: 'second', arguments: { y: 2 } },
    ]);
  });

  it('keeps invalid tool arguments as the string', () => {
    const r = replayBytes('chat', sse(delta({ tool_calls: [{ index: 0, id: 'i', function: { name: 'n', arguments: '{"oops' } }] }, 'tool_calls'), 'data: [DONE]\n\n'));
    expect(r.events.find((e) => e.type === 'tool_call')).toMatchObject({ arguments: '{"oops' });
  });

  it('flushes tool calls at a clean EOF after a finish_reason (no [DONE])', () => {
    const r = replayBytes('chat', sse(delta({ tool_calls: [{ index: 0, id: 'i', function: { name: 'n', arguments: '' } }] }, 'tool_calls')));
    expect(r.termination).toBe('finish_then_eof');
    expect(r.events.filter((e) => e.type === 'tool_call')).toEqual([{ type: 'tool_call', id: 'i', name: 'n', arguments: {} }]);
  });

  it('treats event: error with non-JSON data as an error carrying that text', () => {
    const r = replayBytes('chat', sse(delta({ content: 'a' }), 'event: error\ndata: upstream exploded\n\n', 'data: [DONE]\n\n'));
    expect(r.termination).toBe('error');
    expect(r.events.find((e) => e.type === 'error')).toEqual({ type: 'error', code: null, message: 'upstream exploded', status: null });
  });

  it('emits the model once and ignores explicit nulls', () => {
    const r = replayBytes('chat', sse(delta({ content: null, reasoning_content: null, reasoning: null }), delta({ content: 'x' }), 'data: [DONE]\n\n'));
    expect(r.events).toEqual([{ type: 'model', model: 'm' }, { type: 'text', delta: 'x' }]);
  });

  it('reads "error": null beside normal fields as no error, streamed and not', () => {
    const r = replayBytes('chat', sse(chunk({ model: 'm', error: null, choices: [{ index: 0, delta: { content: 'fine' }, finish_reason: 'stop' }] }), 'data: [DONE]\n\n'));
    expect(r.termination).toBe('end_marker');
    expect(r.events.some((e) => e.type === 'error')).toBe(false);
    expect(textOf(r.events)).toBe('fine');
    const events = parseChatResponse({ model: 'm', error: null, choices: [{ message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' }] });
    expect(events).toEqual([{ type: 'model', model: 'm' }, { type: 'text', delta: 'fine' }, { type: 'finish', reason: 'stop', raw: 'stop' }]);
  });

  it('ignores whatever follows [DONE] in the same read', () => {
    const r = replayBytes('chat', sse(delta({ content: 'a' }, 'stop'), 'data: [DONE]\n\n', delta({ content: 'late' }), 'event: error\ndata: late error\n\n'));
    expect(textOf(r.events)).toBe('a');
    expect(r.termination).toBe('end_marker');
    expect(r.events.some((e) => e.type === 'error')).toBe(false);
  });
});

describe('messages decoder specifics', () => {
  it('reports an error event and says error even when message_stop follows', () => {
    const err = msg('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
    const r = replayBytes('messages', sse(MESSAGE_START, err, msg('message_stop')));
    expect(r.termination).toBe('error');
    expect(r.events.find((e) => e.type === 'error')).toEqual({ type: 'error', code: 'overloaded_error', message: 'Overloaded', status: null });
  });

  it('dispatches on data.type even without event: lines', () => {
    const body = [MESSAGE_START, textBlock('hey'), msg('message_stop')].join('').replace(/^event: .*\n/gm, '');
    const r = replayBytes('messages', sse(body));
    expect(textOf(r.events)).toBe('hey');
    expect(r.termination).toBe('end_marker');
  });

  it('treats a stop_reason then clean EOF as complete', () => {
    const r = replayBytes('messages', sse(MESSAGE_START, textBlock('a'), msg('message_delta', { delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } })));
    expect(r.termination).toBe('finish_then_eof');
    expect(fold(r.events, 'messages', 'complete')).toMatchObject({ finish_reason: 'length', raw_finish_reason: 'max_tokens', usage: { input_tokens: 5, output_tokens: 9 } });
  });

  it('never surfaces server tool blocks as tool calls', () => {
    const r = replayBytes('messages', sse(
      MESSAGE_START,
      msg('content_block_start', { index: 0, content_block: { type: 'server_tool_use', id: 's', name: 'web_search', input: {} } }),
      msg('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } }),
      msg('content_block_stop', { index: 0 }),
      msg('message_stop'),
    ));
    expect(r.events.some((e) => e.type === 'tool_call')).toBe(false);
  });
  it('reads event: error whose data is not a JSON object as the error, in the gateway\'s words', () => {
    const r = replayBytes('messages', sse(MESSAGE_START, 'event: error\ndata: upstream exploded\n\n'));
    expect(r.termination).toBe('error');
    expect(r.events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', code: null, message: 'upstream exploded', status: null }]);
    const quoted = replayBytes('messages', sse(MESSAGE_START, 'event: error\ndata: "Overloaded"\n\n'));
    expect(quoted.termination).toBe('error');
    expect(quoted.events.find((e) => e.type === 'error')).toMatchObject({ message: 'Overloaded' });
  });

  it('still reports a tool call whose block began before the stream was cut', () => {
    const r = replayBytes('messages', sse(
      MESSAGE_START,
      msg('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 't1', name: 'read', input: {} } }),
      msg('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":' } }),
      msg('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"a.txt"}' } }),
      msg('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 't2', name: 'list', input: { dir: '.' } } }),
    ));
    expect(r.termination).toBe('truncated');
    expect(r.events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', id: 't1', name: 'read', arguments: { path: 'a.txt' } },
      { type: 'tool_call', id: 't2', name: 'list', arguments: { dir: '.' } },
    ]);
  });

  it('keeps the earlier input_tokens when a later usage says null', () => {
    const r = replayBytes('messages', sse(
      MESSAGE_START,
      textBlock('a'),
      msg('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { input_tokens: null, output_tokens: 9 } }),
      msg('message_stop'),
    ));
    expect(fold(r.events, 'messages', 'complete').usage).toEqual({ input_tokens: 5, output_tokens: 9, cache_read_tokens: null, cache_write_tokens: null });
    // The decoder's own running total, not only the accumulator, keeps it (its raw usage is what --json shows).
    expect(r.events.filter((e) => e.type === 'usage').at(-1)).toEqual({
      type: 'usage', input_tokens: 5, output_tokens: 9, cache_read_tokens: null, cache_write_tokens: null, cost: null, raw: { input_tokens: 5, output_tokens: 9 },
    });
  });

  it('gives exactly these events, in this order: model once, blocks closed where they stop, thinking with its signature', () => {
    const r = replayBytes('messages', sse(
      MESSAGE_START,
      msg('message_start', { message: { model: 'other', usage: { input_tokens: 6 } } }),
      'event: ping\ndata: \n\n',
      msg('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: 'Hm', signature: '' } }),
      msg('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'm.' } }),
      msg('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
      msg('content_block_stop', { index: 0 }),
      msg('content_block_start', { index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } }),
      msg('content_block_stop', { index: 1 }),
      msg('content_block_start', { index: 2, content_block: { type: 'text', text: 'Hi' } }),
      msg('content_block_delta', { index: 2, delta: { type: 'text_delta', text: '!' } }),
      msg('content_block_delta', { index: 2, delta: { type: 'text_delta', text: '' } }),
      msg('content_block_stop', { index: 2 }),
      msg('content_block_start', { index: 3, content_block: { type: 'tool_use', id: 't', name: 'now', input: {} } }),
      msg('content_block_stop', { index: 3 }),
      msg('content_block_stop', { index: 'x' }),
      msg('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } }),
      msg('message_stop'),
      msg('content_block_start', { index: 4, content_block: { type: 'text', text: 'after the end' } }),
    ));
    expect(r.termination).toBe('end_marker');
    // The ping's empty data is nothing, not a malformed event.
    expect(r.warnings).toEqual([]);
    expect(r.damage).toBeNull();
    expect(r.events).toEqual([
      { type: 'model', model: 'claude-x' },
      { type: 'usage', input_tokens: 5, output_tokens: 1, cache_read_tokens: null, cache_write_tokens: null, cost: null, raw: { input_tokens: 5, output_tokens: 1 } },
      { type: 'usage', input_tokens: 6, output_tokens: 1, cache_read_tokens: null, cache_write_tokens: null, cost: null, raw: { input_tokens: 6, output_tokens: 1 } },
      { type: 'reasoning', delta: 'Hm' },
      { type: 'reasoning', delta: 'm.' },
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: 'Hmm.', signature: 'sig' } },
      { type: 'reasoning', delta: '', block: { type: 'redacted_thinking', data: 'opaque' } },
      { type: 'text', delta: 'Hi' },
      { type: 'text', delta: '!' },
      { type: 'tool_call', id: 't', name: 'now', arguments: {} },
      { type: 'usage', input_tokens: 6, output_tokens: 7, cache_read_tokens: null, cache_write_tokens: null, cost: null, raw: { input_tokens: 6, output_tokens: 7 } },
      { type: 'finish', reason: 'tool_calls', raw: 'tool_use' },
    ]);
  });

  it('closes blocks a cut stream left open in index order, and keeps thinking begun but not closed', () => {
    const r = replayBytes('messages', sse(
      MESSAGE_START,
      msg('content_block_start', { index: 5, content_block: { type: 'tool_use', id: 'b', name: 'second', input: {} } }),
      msg('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'a', name: 'first', input: {} } }),
      msg('content_block_start', { index: 1, content_block: { type: 'thinking', thinking: '' } }),
      msg('content_block_delta', { index: 1, delta: { type: 'thinking_delta', thinking: 'half' } }),
    ));
    expect(r.termination).toBe('truncated');
    expect(r.events.slice(-3)).toEqual([
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: 'half', signature: '' } },
      { type: 'tool_call', id: 'a', name: 'first', arguments: {} },
      { type: 'tool_call', id: 'b', name: 'second', arguments: {} },
    ]);
  });

  it('--no-stream: server tool, search result and redacted thinking blocks are not tool calls', () => {
    const events = parseMessagesResponse({
      type: 'message',
      model: 'claude-x',
      content: [
        { type: 'server_tool_use', id: 's', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 's', content: [] },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'found it' },
        { type: 'tool_use', id: 'u', name: 'read', input: { path: 'a' } },
      ],
      stop_reason: 'tool_use',
    });
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([{ type: 'tool_call', id: 'u', name: 'read', arguments: { path: 'a' } }]);
    expect(events.filter((e) => e.type === 'reasoning')).toEqual([{ type: 'reasoning', delta: '', block: { type: 'redacted_thinking', data: 'opaque' } }]);
  });
});
