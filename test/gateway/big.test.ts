// big-M: M MiB of lorem text in 16 KiB deltas, both interfaces, streaming and not (the fixture of
// the memory benchmark and the backpressure test).
import { describe, expect, it } from 'vitest';
import { parseModel } from '../../src/gateway/models.js';
import { BIG_DELTA_BYTES, bigTokens, joinTokens, jsonWithText, loremText, tokensOf } from '../../src/gateway/text.js';
import { asAny, bodyFor, chatText, LOREM_START, messagesText, payloads, post, readAll, useGateway } from './support.js';

const MiB = 1024 * 1024;

describe('big-M model names', () => {
  it('parses big-1 … big-1024; 0, over 1024 and non-numbers are unknown models', () => {
    expect(parseModel('big-1')?.behaviour).toEqual({ kind: 'big', mib: 1 });
    expect(parseModel('big-1024')?.behaviour).toEqual({ kind: 'big', mib: 1024 });
    expect(parseModel('big-50+gzip')).toMatchObject({ behaviour: { kind: 'big', mib: 50 }, gzip: true });
    for (const name of ['big-0', 'big-1025', 'big-', 'big-x', 'big-1.5', 'big--1']) expect(parseModel(name), name).toBeNull();
  });
});

describe('bigTokens', () => {
  it('exactly M MiB in 16 KiB deltas: the first M MiB of the lorem-N text', () => {
    const tokens = bigTokens(2);
    expect(tokens.count).toBe((2 * MiB) / BIG_DELTA_BYTES);
    for (let i = 0; i < tokens.count; i++) expect(tokens.at(i).length).toBe(BIG_DELTA_BYTES);
    const text = joinTokens(tokens);
    expect(Buffer.byteLength(text)).toBe(2 * MiB);
    expect(text.startsWith(LOREM_START)).toBe(true);
    // the same words, the same single spaces as lorem-N, cut at the byte count
    expect(text).toBe(loremText(400_000).slice(0, 2 * MiB));
  });

  it('big-1024 is indexed lazily: the last delta is as cheap as the first', () => {
    const tokens = bigTokens(1024);
    expect(tokens.count).toBe(65_536);
    const last = tokens.at(tokens.count - 1);
    expect(last.length).toBe(BIG_DELTA_BYTES);
    expect(last).toMatch(/^[A-Za-z ,.]+$/);
  });
});

describe('jsonWithText', () => {
  it('writes the text in place of the marker, escaped, so the pieces parse as the whole object', () => {
    const pieces = ['plain ', 'a "quote" ', 'back\\slash ', 'line\nbreak ', 'tab\t', 'ünïcödé 🙂', '\u0001'];
    const value = { id: 'x', choices: [{ message: { role: 'assistant', content: 'MARK' } }], usage: { n: 1 } };
    const parts = [...jsonWithText(value, 'MARK', tokensOf(pieces))];
    expect(parts.length).toBe(pieces.length + 2);
    expect(JSON.parse(parts.join(''))).toEqual({ ...value, choices: [{ message: { role: 'assistant', content: pieces.join('') } }] });
  });
});

describe('big-M over HTTP', () => {
  const gateway = useGateway();

  it('chat stream: M MiB in 16 KiB content deltas, usage counts deltas, finish stop, [DONE]', async () => {
    const res = await post(gateway(), 'chat', bodyFor('chat', 'big-2', 'x', { stream: true, stream_options: { include_usage: true } }));
    expect(res.status).toBe(200);
    const chunks = payloads(await res.text());
    const deltas = chunks.filter((c) => c !== '[DONE]' && c.choices[0]?.delta.content);
    expect(deltas).toHaveLength(128);
    for (const c of deltas) expect(c.choices[0].delta.content.length).toBe(BIG_DELTA_BYTES);
    expect(chatText(chunks)).toBe(joinTokens(bigTokens(2)));
    expect(chunks.at(-3).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-2).usage.completion_tokens).toBe(128);
    expect(chunks.at(-1)).toBe('[DONE]');
  });

  it('messages stream: M MiB of text_delta, end_turn — max_tokens does not cut it', async () => {
    const res = await post(gateway(), 'messages', bodyFor('messages', 'big-1', 'x', { stream: true, max_tokens: 10 }));
    const events = payloads(await res.text());
    expect(Buffer.byteLength(messagesText(events))).toBe(MiB);
    const delta = events.find((e) => e.type === 'message_delta');
    expect(delta.delta.stop_reason).toBe('end_turn');
    expect(delta.usage.output_tokens).toBe(64);
    expect(events.at(-1).type).toBe('message_stop');
  });

  it('without streaming: the whole JSON body, chunked (no content-length), on both interfaces, gzip too', async () => {
    const expected = joinTokens(bigTokens(3));
    const chat = await post(gateway(), 'chat', bodyFor('chat', 'big-3', 'x'));
    expect(chat.headers.get('content-length')).toBeNull();
    const chatJson = asAny(await chat.json());
    expect(chatJson.choices[0].message.content).toBe(expected);
    expect(chatJson.choices[0].finish_reason).toBe('stop');
    expect(chatJson.usage.completion_tokens).toBe(192);

    const messages = await post(gateway(), 'messages', bodyFor('messages', 'big-3+gzip', 'x'), { headers: { 'accept-encoding': 'gzip' } });
    expect(messages.headers.get('content-encoding')).toBe('gzip');
    const messagesJson = asAny(await messages.json());
    expect(messagesJson.content).toEqual([{ type: 'text', text: expected }]);
    expect(messagesJson.stop_reason).toBe('end_turn');
  });

  it('a client that stops reading mid-answer ends the response; the gateway goes on serving', async () => {
    const res = await post(gateway(), 'chat', bodyFor('chat', 'big-512', 'x', { stream: true }));
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('chat.completion.chunk');
    await reader.cancel();
    const next = await readAll(await post(gateway(), 'chat', bodyFor('chat', 'echo', 'still here')));
    expect(asAny(JSON.parse(next.text)).choices[0].message.content).toBe('still here');
  });

  it('is listed by GET /v1/models as big-50', async () => {
    const list = asAny(await (await fetch(`${gateway().url}/v1/models`)).json());
    expect(list.data.map((m: any) => m.id)).toContain('big-50');
  });
});
