// The Messages stream decoder event by event (SPEC §5.4): what each SSE event becomes, and what a
// gateway's odd or partial events must not become.
import { describe, expect, it } from 'vitest';
import { createMessagesDecoder, messagesUsageEvent } from '../../src/protocol/anthropic-messages-decoder.js';
import type { ChatEvent } from '../../src/protocol/events.js';

type Sent = Record<string, unknown> | string;

/** Feeds each payload as a `data:` line (with `event:` set to its type unless given), then finishes. */
function decode(payloads: Array<Sent | [string | undefined, Sent]>) {
  const decoder = createMessagesDecoder();
  const events: ChatEvent[] = [];
  for (const p of payloads) {
    const [event, data] = Array.isArray(p) ? p : [typeof p === 'string' ? undefined : (p.type as string), p];
    events.push(...decoder.push({ event, data: typeof data === 'string' ? data : JSON.stringify(data) }));
  }
  const finished = decoder.finish();
  return { events: [...events, ...finished.events], termination: finished.termination, warnings: decoder.warnings, damage: decoder.damage };
}

const start = (index: number, content_block: Record<string, unknown>) => ({ type: 'content_block_start', index, content_block });
const delta = (index: number | undefined, d: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta: d });
const stop = (index: unknown) => ({ type: 'content_block_stop', index });
const text = (events: ChatEvent[]) => events.map((e) => (e.type === 'text' ? e.delta : '')).join('');

describe('Messages stream decoder', () => {
  it('a data line of white space is nothing: no warning, no damage', () => {
    const out = decode([['message_start', '   ']]);
    expect(out.events).toEqual([]);
    expect(out.warnings).toEqual([]);
    expect(out.damage).toBeNull();
  });

  it('the event name is used when the data has no type; the data’s type wins when both are there', () => {
    expect(text(decode([['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'by name' } }]]).events)).toBe('by name');
    expect(text(decode([['ping', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'by type' } }]]).events)).toBe('by type');
  });

  it('the model once, from the first message_start', () => {
    const out = decode([
      { type: 'message_start', message: { model: 'claude-a' } },
      { type: 'message_start', message: { model: 'claude-b' } },
      { type: 'message_start', message: { model: '' } },
    ]);
    expect(out.events).toEqual([{ type: 'model', model: 'claude-a' }]);
  });

  it('a block start without an index is ignored; text in a text block’s start is text', () => {
    const out = decode([
      { type: 'content_block_start', content_block: { type: 'text', text: 'lost' } },
      start(0, { type: 'text', text: '' }),
      start(1, { type: 'text', text: 'Hello' }),
      delta(1, { type: 'text_delta', text: '' }),
      delta(1, { type: 'text_delta', text: ' world' }),
      stop(0),
      stop(1),
    ]);
    expect(out.events).toEqual([
      { type: 'text', delta: 'Hello' },
      { type: 'text', delta: ' world' },
    ]);
  });

  it('thinking: the start’s text and every delta shown, the whole block with its signature sent back once it closes', () => {
    const out = decode([
      start(0, { type: 'thinking', thinking: 'First, ', signature: 'S1' }),
      delta(0, { type: 'thinking_delta', thinking: 'then.' }),
      delta(0, { type: 'thinking_delta', thinking: '' }),
      delta(0, { type: 'thinking_delta', thinking: 5 }),
      delta(0, { type: 'signature_delta', signature: '-S2' }),
      delta(0, { type: 'signature_delta', signature: 7 }),
      stop(0),
    ]);
    expect(out.events).toEqual([
      { type: 'reasoning', delta: 'First, ' },
      { type: 'reasoning', delta: 'then.' },
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: 'First, then.', signature: 'S1-S2' } },
    ]);
  });

  it('a thinking block started without text or signature is the deltas alone, signature empty', () => {
    const out = decode([start(0, { type: 'thinking' }), delta(0, { type: 'thinking_delta', thinking: 'x' }), stop(0)]);
    expect(out.events).toEqual([
      { type: 'reasoning', delta: 'x' },
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: 'x', signature: '' } },
    ]);
  });

  it('deltas for a block of another kind, or for no block, change nothing that is sent back', () => {
    const out = decode([
      start(0, { type: 'text' }),
      start(1, { type: 'tool_use', id: 't', name: 'f', input: {} }),
      start(2, { type: 'thinking', thinking: 'a', signature: 's' }),
      // A thinking delta on the text block is shown, but is not part of block 2.
      delta(0, { type: 'thinking_delta', thinking: 'stray' }),
      delta(9, { type: 'thinking_delta', thinking: 'nowhere' }),
      delta(undefined, { type: 'signature_delta', signature: 'X' }),
      delta(1, { type: 'signature_delta', signature: 'X' }),
      delta(0, { type: 'input_json_delta', partial_json: '{"a":1}' }),
      delta(2, { type: 'input_json_delta', partial_json: '{"a":1}' }),
      delta(1, { type: 'input_json_delta', partial_json: 3 }),
      stop(0),
      stop(1),
      stop(2),
    ]);
    expect(out.events).toEqual([
      { type: 'reasoning', delta: 'a' },
      { type: 'reasoning', delta: 'stray' },
      { type: 'reasoning', delta: 'nowhere' },
      { type: 'tool_call', id: 't', name: 'f', arguments: {} },
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: 'a', signature: 's' } },
    ]);
  });

  it('a tool_use block with odd id and name still becomes a call; a block stop without a number index closes nothing', () => {
    const out = decode([start(0, { type: 'tool_use', id: 4, name: null }), delta(0, { type: 'input_json_delta', partial_json: '{"q":' }), delta(0, { type: 'input_json_delta', partial_json: '1}' }), stop('0')]);
    // Not closed by the stop with a string index: flushed when the stream finished.
    expect(out.events).toEqual([{ type: 'tool_call', id: '', name: '', arguments: { q: 1 } }]);
  });

  it('a stop reason ends the answer only when it is given; null usage fields never erase earlier ones', () => {
    const cut = decode([{ type: 'message_delta', delta: { stop_reason: '' }, usage: { output_tokens: 3 } }]);
    expect(cut.termination).toBe('truncated');
    expect(cut.events.filter((e) => e.type === 'finish')).toEqual([]);
    const out = decode([
      { type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { input_tokens: null, output_tokens: 12 } },
    ]);
    expect(out.termination).toBe('finish_then_eof');
    const usage = out.events.filter((e) => e.type === 'usage').at(-1);
    expect(usage).toMatchObject({ input_tokens: 10, output_tokens: 12 });
  });
});

describe('messagesUsageEvent', () => {
  it('input counts cached reads and writes in; counts that are not numbers are unknown', () => {
    expect(messagesUsageEvent({ input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 1000, output_tokens: 5 })).toMatchObject({
      input_tokens: 1110,
      output_tokens: 5,
      cache_read_tokens: 100,
      cache_write_tokens: 1000,
    });
    expect(messagesUsageEvent({ input_tokens: 10, cache_creation_input_tokens: 1000 })).toMatchObject({ input_tokens: 1010, output_tokens: null });
    expect(messagesUsageEvent({ input_tokens: 10, cache_read_input_tokens: 100 })).toMatchObject({ input_tokens: 110 });
    expect(messagesUsageEvent({ input_tokens: '10', output_tokens: '5' })).toMatchObject({ input_tokens: null, output_tokens: null });
  });
});

describe('Messages stream decoder: what leaves no trace', () => {
  it('events that carry nothing to show give no events at all', () => {
    const out = decode([
      ['message_start', '[1,2]'],
      { type: 'ping' },
      { type: 'message_start', message: { usage: 'none' } },
      start(0, { type: 'server_tool_use', id: 's1', name: 'web_search' }),
      delta(0, { type: 'input_json_delta', partial_json: '{"q":1}' }),
      delta(7, { type: 'input_json_delta', partial_json: '{"q":1}' }),
      delta(0, { type: 'citations_delta', citation: {} }),
      delta(0, { type: 'text_delta' }),
      start(1, { type: 'text' }),
    ]);
    expect(out.events).toEqual([]);
  });

  it('a thinking block keeps the signature its start carried', () => {
    const out = decode([start(0, { type: 'thinking', thinking: 'hm', signature: 'sig-start' }), delta(0, { type: 'signature_delta', signature: '+more' }), stop(0)]);
    expect(out.events).toEqual([
      { type: 'reasoning', delta: 'hm' },
      { type: 'reasoning', delta: '', block: { type: 'thinking', thinking: 'hm', signature: 'sig-start+more' } },
    ]);
  });

  it('a usage value of null later in the stream does not erase the one reported before', () => {
    const out = decode([
      { type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: 'message_delta', delta: {}, usage: { input_tokens: null, output_tokens: 5 } },
    ]);
    const last = out.events.at(-1);
    expect(last).toMatchObject({ type: 'usage', input_tokens: 10, output_tokens: 5 });
  });

  it('an error event is an error whatever type its JSON object names', () => {
    const out = decode([['error', { type: 'overloaded_error', message: 'busy' }]]);
    expect(out.events).toEqual([{ type: 'error', code: 'overloaded_error', message: 'busy', status: null }]);
    expect(out.termination).toBe('error');
  });
});

describe('Messages stream decoder: an error object without an error event line', () => {
  it('data whose type is "error" is an error even when no event: line names it', () => {
    const out = decode([[undefined, { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }]]);
    expect(out.events).toEqual([{ type: 'error', code: 'overloaded_error', message: 'busy', status: null }]);
    expect(out.termination).toBe('error');
  });
});
