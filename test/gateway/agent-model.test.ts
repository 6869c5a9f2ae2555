// The dev gateway's `agent` model (SPEC §15) on the wire of both interfaces: the call it makes, the
// answer to results, and on Messages the signed thinking block and the vendor's refusal when it is lost.
import { describe, expect, it } from 'vitest';
import { post, useGateway } from './support.js';

const gateway = useGateway();
const chatTools = [{ type: 'function', function: { name: 'first', parameters: { type: 'object' } } }, { type: 'function', function: { name: 'second', parameters: { type: 'object' } } }];
const messagesTools = [{ name: 'first', input_schema: { type: 'object' } }, { name: 'second', input_schema: { type: 'object' } }];

describe('model agent', () => {
  it('Chat Completions: calls the tool the prompt names with its arguments, else the first with {}', async () => {
    const named = (await (await post(gateway(), 'chat', { model: 'agent', messages: [{ role: 'user', content: 'call second {"a": 1}' }], tools: chatTools })).json()) as any;
    expect(named.choices[0].message.tool_calls[0].function).toEqual({ name: 'second', arguments: '{"a":1}' });
    expect(named.choices[0].finish_reason).toBe('tool_calls');
    const plain = (await (await post(gateway(), 'chat', { model: 'agent', messages: [{ role: 'user', content: 'do it' }], tools: chatTools })).json()) as any;
    expect(plain.choices[0].message.tool_calls[0].function).toEqual({ name: 'first', arguments: '{}' });
  });

  it('Chat Completions: with tool results last it answers "results: " and each result', async () => {
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'first', arguments: '{}' } }, { id: 'c2', type: 'function', function: { name: 'second', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: 'two' },
    ];
    const answer = (await (await post(gateway(), 'chat', { model: 'agent', messages, tools: chatTools })).json()) as any;
    expect(answer.choices[0].message.content).toBe('results: one\ntwo');
  });

  it('Messages: a tool-calling answer carries a signed thinking block first', async () => {
    const answer = (await (await post(gateway(), 'messages', { model: 'agent', max_tokens: 100, messages: [{ role: 'user', content: 'call first' }], tools: messagesTools })).json()) as any;
    expect(answer.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/.+/) });
    expect(answer.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'first', input: {} });
    expect(answer.stop_reason).toBe('tool_use');
  });

  it('Messages: a follow-up whose tool-calling turn lost its thinking block is refused with the vendor\'s 400; with it, answered', async () => {
    const first = (await (await post(gateway(), 'messages', { model: 'agent', max_tokens: 100, messages: [{ role: 'user', content: 'call first' }], tools: messagesTools })).json()) as any;
    const toolUse = first.content.at(-1);
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'done' }] };
    const lost = await post(gateway(), 'messages', { model: 'agent', max_tokens: 100, tools: messagesTools, messages: [{ role: 'user', content: 'call first' }, { role: 'assistant', content: [toolUse] }, result] });
    expect(lost.status).toBe(400);
    expect(((await lost.json()) as any).error.message).toContain('Expected `thinking` or `redacted_thinking`, but found `tool_use`');
    const kept = await post(gateway(), 'messages', { model: 'agent', max_tokens: 100, tools: messagesTools, messages: [{ role: 'user', content: 'call first' }, { role: 'assistant', content: first.content }, result] });
    expect(kept.status).toBe(200);
    expect(((await kept.json()) as any).content[0].text).toBe('results: done');
  });
});
