// Chat Completions wire format of the dev gateway, checked chunk by chunk against the shapes in
// the OpenAI recordings (fixtures/recorded/openai-chat/).
import { describe, expect, it } from 'vitest';
import { bodyFor, chatText, LOREM_START, payloads, post, readAll, useGateway, asAny } from './support.js';

const gateway = useGateway();

describe('Chat Completions streaming', () => {
  it('echo: role chunk, one chunk per word, finish chunk, usage chunk, [DONE]', async () => {
    const res = await post(gateway(), 'chat', bodyFor('chat', 'echo', 'hello there  world\n', { stream: true, stream_options: { include_usage: true } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw = await res.text();
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    for (const block of raw.split('\n\n').filter(Boolean)) expect(block).toMatch(/^data: /);
    const chunks = payloads(raw);
    const [first, ...rest] = chunks;
    expect(first).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion.chunk',
      created: expect.any(Number),
      model: 'echo',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    expect(rest.slice(0, 3).map((c) => c.choices[0].delta)).toEqual([{ content: 'hello' }, { content: ' there' }, { content: '  world\n' }]);
    expect(rest[3].choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
    expect(rest[4]).toEqual({
      id: first.id,
      object: 'chat.completion.chunk',
      created: first.created,
      model: 'echo',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    });
    expect(rest[5]).toBe('[DONE]');
    expect(rest).toHaveLength(6);
    expect(new Set(chunks.filter((c) => c !== '[DONE]').map((c) => c.id)).size).toBe(1);
  });

  it('sends no usage chunk unless stream_options.include_usage', async () => {
    const chunks = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'echo', 'a b', { stream: true }))).text());
    expect(chunks.some((c) => c !== '[DONE]' && 'usage' in c)).toBe(false);
    expect(chunks.at(-1)).toBe('[DONE]');
  });

  it('lorem-N streams N words of lorem ipsum', async () => {
    const chunks = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'lorem-300', 'x', { stream: true, stream_options: { include_usage: true } }))).text());
    const text = chatText(chunks);
    expect(text.startsWith(LOREM_START)).toBe(true);
    expect(text.split(' ')).toHaveLength(300);
    expect(chunks.filter((c) => c !== '[DONE]' && c.choices[0]?.delta.content)).toHaveLength(300);
    expect(chunks.at(-2).usage.completion_tokens).toBe(300);
  });

  it('lorem-N read slowly (backpressure) arrives whole: every chunk, in order, finish and [DONE]', async () => {
    const reference = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'lorem-20000', 'x', { stream: true }))).text());
    const res = await post(gateway(), 'chat', bodyFor('chat', 'lorem-20000', 'x', { stream: true }));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let raw = '';
    let reads = 0;
    // A slow reader throughout, not only before the first chunk: long pauses at the start and
    // part-way, short ones all along. The gateway must wait for us at every point of the answer and
    // still send each chunk exactly once, in order.
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await pause(300);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      reads++;
      if (reads === 32) await pause(300);
      else if (reads % 16 === 0) await pause(2);
    }
    raw += decoder.decode();
    expect(reads).toBeGreaterThan(16);
    const chunks = payloads(raw);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.at(-2).choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
    const deltas = chunks.slice(1, -2).map((c) => c.choices[0].delta.content);
    expect(deltas).toHaveLength(20000);
    expect(deltas).toEqual(reference.slice(1, -2).map((c) => c.choices[0].delta.content));
    expect(deltas.join('').split(' ')).toHaveLength(20000);
  });

  it('lorem-N: a read cancelled part-way leaves the gateway serving', async () => {
    const res = await post(gateway(), 'chat', bodyFor('chat', 'lorem-20000', 'x', { stream: true }));
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('"role":"assistant"');
    await reader.cancel();
    const full = chatText(payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'lorem-20000', 'x', { stream: true }))).text()));
    expect(full.split(' ')).toHaveLength(20000);
  });

  it('slow-N: words arrive as separate writes N ms apart; max_tokens sets the length', async () => {
    const started = Date.now();
    const res = await post(gateway(), 'chat', bodyFor('chat', 'slow-40', 'x', { stream: true, max_tokens: 5 }));
    const { text, reads } = await readAll(res);
    expect(Date.now() - started).toBeGreaterThanOrEqual(120); // 4 gaps of 40 ms, generous lower bound
    expect(reads).toBeGreaterThanOrEqual(5);
    const chunks = payloads(text);
    expect(chatText(chunks)).toBe('Lorem ipsum dolor sit amet,');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
  });

  it('slow-N defaults to 50 words', async () => {
    const chunks = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'slow-1', 'x', { stream: true }))).text());
    expect(chatText(chunks).split(' ')).toHaveLength(50);
  });

  it('think: reasoning_content first, then the echo', async () => {
    const chunks = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'think', 'say this', { stream: true }))).text());
    const reasoning = chatText(chunks, 'reasoning_content');
    expect(reasoning.length).toBeGreaterThan(10);
    expect(chatText(chunks)).toBe('say this');
    const firstContent = chunks.findIndex((c) => c !== '[DONE]' && c.choices[0]?.delta.content);
    const lastReasoning = chunks.map((c) => c !== '[DONE]' && !!c.choices[0]?.delta.reasoning_content).lastIndexOf(true);
    expect(lastReasoning).toBeLessThan(firstContent);
    const same = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'reason-echo', 'say this', { stream: true }))).text());
    expect(chatText(same, 'reasoning_content')).toBe(reasoning);
  });

  it('tool: id and name once, arguments in fragments, finish tool_calls', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }, { type: 'function', function: { name: 'other' } }];
    const chunks = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'tool', 'find "it" now', { stream: true, tools }))).text());
    const first = chunks[0].choices[0].delta;
    expect(first).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'lookup', arguments: '' } }],
    });
    const fragments = chunks.slice(1).flatMap((c) => (c === '[DONE]' ? [] : c.choices[0]?.delta.tool_calls ?? []));
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    for (const f of fragments) expect(Object.keys(f).sort()).toEqual(['function', 'index']);
    expect(JSON.parse(fragments.map((f: any) => f.function.arguments).join(''))).toEqual({ input: 'find "it" now' });
    expect(chunks.at(-2).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' });
  });

  it('max_tokens shorter than the answer cuts it with finish length', async () => {
    const chunks = payloads(
      await (await post(gateway(), 'chat', bodyFor('chat', 'echo', 'one two three four five', { stream: true, max_tokens: 2, stream_options: { include_usage: true } }))).text(),
    );
    expect(chatText(chunks)).toBe('one two');
    expect(chunks.at(-3).choices[0].finish_reason).toBe('length');
    expect(chunks.at(-2).usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });
});

describe('Chat Completions without streaming', () => {
  it('echo: the chat.completion object with usage over all messages', async () => {
    const body = {
      model: 'echo',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'an answer' },
        { role: 'user', content: [{ type: 'text', text: 'last words' }] },
      ],
    };
    const res = await post(gateway(), 'chat', body);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json().then(asAny)).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'echo',
      choices: [{ index: 0, message: { role: 'assistant', content: 'last words' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 },
    });
  });

  it('think: reasoning_content beside the content', async () => {
    const json = await (await post(gateway(), 'chat', bodyFor('chat', 'think', 'hi'))).json().then(asAny);
    expect(json.choices[0].message.content).toBe('hi');
    expect(json.choices[0].message.reasoning_content.length).toBeGreaterThan(10);
  });

  it('tool: tool_calls with the arguments JSON text', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup' } }];
    const json = await (await post(gateway(), 'chat', bodyFor('chat', 'tool', 'abc', { tools }))).json().then(asAny);
    expect(json.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'lookup', arguments: expect.any(String) } }] },
      finish_reason: 'tool_calls',
    });
    expect(JSON.parse(json.choices[0].message.tool_calls[0].function.arguments)).toEqual({ input: 'abc' });
  });

  it('tool without tools in the request is a 400', async () => {
    const res = await post(gateway(), 'chat', bodyFor('chat', 'tool', 'abc'));
    expect(res.status).toBe(400);
    expect((await res.json().then(asAny)).error.param).toBe('tools');
  });

  it('max-completion-tokens rejects max_tokens exactly like OpenAI, accepts max_completion_tokens', async () => {
    const rejected = await post(gateway(), 'chat', bodyFor('chat', 'max-completion-tokens', 'a b c', { max_tokens: 10 }));
    expect(rejected.status).toBe(400);
    expect(await rejected.json().then(asAny)).toEqual({
      error: {
        message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: 'unsupported_parameter',
      },
    });
    const ok = await (await post(gateway(), 'chat', bodyFor('chat', 'max-completion-tokens', 'a b c', { max_completion_tokens: 2 }))).json().then(asAny);
    expect(ok.choices[0].message.content).toBe('a b');
    expect(ok.choices[0].finish_reason).toBe('length');
    const plain = await (await post(gateway(), 'chat', bodyFor('chat', 'max-completion-tokens', 'a b c'))).json().then(asAny);
    expect(plain.choices[0].message.content).toBe('a b c');
  });

  it('lorem-N with max_completion_tokens on any model', async () => {
    const json = await (await post(gateway(), 'chat', bodyFor('chat', 'lorem-100', 'x', { max_completion_tokens: 3 }))).json().then(asAny);
    expect(json.choices[0].message.content).toBe('Lorem ipsum dolor');
    expect(json.usage.completion_tokens).toBe(3);
  });
});
