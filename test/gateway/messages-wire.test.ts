// Messages wire format of the dev gateway, checked event by event against the shapes in the
// Anthropic recordings (fixtures/recorded/anthropic-messages/).
import { describe, expect, it } from 'vitest';
import { bodyFor, messagesText, parseSse, payloads, post, readAll, useGateway, asAny } from './support.js';

const gateway = useGateway();

async function streamEvents(body: Record<string, unknown>) {
  const res = await post(gateway(), 'messages', { ...body, stream: true });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const raw = await res.text();
  const messages = parseSse(raw);
  // every message names its type twice: the event line and data.type agree
  for (const m of messages) expect(JSON.parse(m.data).type).toBe(m.event);
  return { raw, events: messages.map((m) => JSON.parse(m.data)) };
}

describe('Messages streaming', () => {
  it('echo: message_start, block start, ping, deltas, block stop, message_delta, message_stop', async () => {
    const { raw, events } = await streamEvents({
      model: 'echo',
      max_tokens: 100,
      system: 'you are terse',
      messages: [{ role: 'user', content: 'hello there world' }],
    });
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]).toEqual({
      type: 'message_start',
      message: {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        role: 'assistant',
        model: 'echo',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 6, output_tokens: 1 },
      },
    });
    expect(events[1]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    expect(events.slice(3, 6).map((e) => e.delta)).toEqual([
      { type: 'text_delta', text: 'hello' },
      { type: 'text_delta', text: ' there' },
      { type: 'text_delta', text: ' world' },
    ]);
    expect(events[6]).toEqual({ type: 'content_block_stop', index: 0 });
    expect(events[7]).toEqual({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } });
    expect(raw.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it('echo takes the text blocks of the last user message', async () => {
    const { events } = await streamEvents({
      model: 'echo',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'old' },
        { role: 'assistant', content: [{ type: 'text', text: 'reply' }] },
        { role: 'user', content: [{ type: 'text', text: 'first part' }, { type: 'text', text: 'second' }] },
      ],
    });
    expect(messagesText(events)).toBe('first part\nsecond');
    expect(events[0].message.usage.input_tokens).toBe(5);
  });

  it('think: a thinking block with signature, then the text block', async () => {
    const { events } = await streamEvents(bodyFor('messages', 'think', 'repeat me'));
    const starts = events.filter((e) => e.type === 'content_block_start');
    expect(starts.map((e) => [e.index, e.content_block.type])).toEqual([
      [0, 'thinking'],
      [1, 'text'],
    ]);
    expect(starts[0].content_block).toEqual({ type: 'thinking', thinking: '', signature: '' });
    expect(messagesText(events, 'thinking_delta').length).toBeGreaterThan(10);
    expect(events.some((e) => e.type === 'content_block_delta' && e.index === 0 && e.delta.type === 'signature_delta')).toBe(true);
    expect(messagesText(events)).toBe('repeat me');
  });

  it('tool: a tool_use block with input_json_delta fragments, stop_reason tool_use', async () => {
    const tools = [{ name: 'lookup', description: 'x', input_schema: { type: 'object' } }];
    const { events } = await streamEvents(bodyFor('messages', 'tool', 'what is "this"', { tools }));
    const start = events.find((e) => e.type === 'content_block_start');
    expect(start.content_block).toEqual({ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'lookup', input: {} });
    const fragments = events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta);
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    for (const f of fragments) expect(f.type).toBe('input_json_delta');
    expect(JSON.parse(fragments.map((f) => f.partial_json).join(''))).toEqual({ input: 'what is "this"' });
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
  });

  it('max_tokens shorter than the answer: stop_reason max_tokens', async () => {
    const { events } = await streamEvents(bodyFor('messages', 'lorem-50', 'x', { max_tokens: 4 }));
    expect(messagesText(events)).toBe('Lorem ipsum dolor sit');
    expect(events.find((e) => e.type === 'message_delta')).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: { output_tokens: 4 },
    });
  });

  it('slow-N arrives in several reads', async () => {
    const res = await post(gateway(), 'messages', bodyFor('messages', 'slow-30', 'x', { max_tokens: 4, stream: true }));
    const { text, reads } = await readAll(res);
    expect(reads).toBeGreaterThanOrEqual(4);
    expect(messagesText(payloads(text))).toBe('Lorem ipsum dolor sit');
  });

  it('max-completion-tokens answers normally on Messages (max_tokens is that interface\'s field)', async () => {
    const { events } = await streamEvents(bodyFor('messages', 'max-completion-tokens', 'fine here'));
    expect(messagesText(events)).toBe('fine here');
  });
});

describe('Messages without streaming', () => {
  it('echo: the message object', async () => {
    const res = await post(gateway(), 'messages', bodyFor('messages', 'echo', 'just this'));
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json().then(asAny)).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: 'echo',
      content: [{ type: 'text', text: 'just this' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 2, output_tokens: 2 },
    });
  });

  it('think and tool blocks', async () => {
    const thought = await (await post(gateway(), 'messages', bodyFor('messages', 'think', 'ok'))).json().then(asAny);
    expect(thought.content.map((b: any) => b.type)).toEqual(['thinking', 'text']);
    expect(thought.content[0].signature).toEqual(expect.any(String));
    expect(thought.content[1].text).toBe('ok');
    const tools = [{ name: 'lookup', input_schema: { type: 'object' } }];
    const called = await (await post(gateway(), 'messages', bodyFor('messages', 'tool', 'ok', { tools }))).json().then(asAny);
    expect(called.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'lookup', input: { input: 'ok' } }]);
    expect(called.stop_reason).toBe('tool_use');
  });

  it('lorem-N cut by max_tokens', async () => {
    const json = await (await post(gateway(), 'messages', bodyFor('messages', 'lorem-9', 'x', { max_tokens: 2 }))).json().then(asAny);
    expect(json.content[0].text).toBe('Lorem ipsum');
    expect(json.stop_reason).toBe('max_tokens');
    expect(json.usage.output_tokens).toBe(2);
  });
});
