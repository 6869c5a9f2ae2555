// The dev gateway's `json` / `json-bad` models and `echo`'s names for non-text parts (SPEC §9),
// on the wire of both interfaces.
import { describe, expect, it } from 'vitest';
import { brokenSample, sampleFor } from '../../src/gateway/json-document.js';
import { bodyFor, payloads, post, useGateway } from './support.js';

const gateway = useGateway();

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer', minimum: 18 },
    kind: { enum: ['cat', 'dog'] },
    tags: { type: 'array', items: { type: 'string' } },
    nick: { type: ['string', 'null'] },
    address: { type: 'object', properties: { city: { type: 'string' } } },
  },
};
const expected = { name: 'sample name', age: 18, kind: 'cat', tags: ['sample tags'], nick: 'sample nick', address: { city: 'sample city' } };

describe('sampleFor', () => {
  it('builds a document matching the common keywords; brokenSample breaks the first property', () => {
    expect(sampleFor(schema, 'answer')).toEqual(expected);
    expect(brokenSample(schema)).toEqual({ ...expected, name: 12345 });
  });
});

describe('model json', () => {
  it('Chat Completions: the document as pretty-printed text, streamed word by word and whole', async () => {
    const format = { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } } };
    const streamed = payloads(await (await post(gateway(), 'chat', bodyFor('chat', 'json', 'x', { ...format, stream: true }))).text());
    const text = streamed.filter((c) => c !== '[DONE]').map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(JSON.parse(text)).toEqual(expected);
    expect(streamed.filter((c) => c !== '[DONE]' && c.choices[0]?.delta?.content).length).toBeGreaterThan(3);
    const whole = (await (await post(gateway(), 'chat', bodyFor('chat', 'json', 'x', format))).json()) as any;
    expect(JSON.parse(whole.choices[0].message.content)).toEqual(expected);
  });

  it('Messages: the forced tool called with the document as input, streamed and whole', async () => {
    const tools = { tools: [{ name: 'answer', input_schema: schema }], tool_choice: { type: 'tool', name: 'answer' } };
    const whole = (await (await post(gateway(), 'messages', bodyFor('messages', 'json', 'x', tools))).json()) as any;
    expect(whole.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'answer', input: expected }]);
    expect(whole.stop_reason).toBe('tool_use');
    const streamed = payloads(await (await post(gateway(), 'messages', bodyFor('messages', 'json', 'x', { ...tools, stream: true }))).text());
    const json = streamed.filter((e) => e.type === 'content_block_delta').map((e) => e.delta.partial_json).join('');
    expect(JSON.parse(json)).toEqual(expected);
  });

  it('json-bad answers a document that breaks the schema', async () => {
    const tools = { tools: [{ name: 'answer', input_schema: schema }], tool_choice: { type: 'tool', name: 'answer' } };
    const whole = (await (await post(gateway(), 'messages', bodyFor('messages', 'json-bad', 'x', tools))).json()) as any;
    expect(whole.content[0].input.name).toBe(12345);
  });

  it('a request without a schema is a 400 that says what to send', async () => {
    const res = await post(gateway(), 'chat', bodyFor('chat', 'json'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toMatch(/response_format/);
  });
});

describe('echo names non-text parts', () => {
  it('image_url and file parts (Chat Completions), image and document blocks (Messages)', async () => {
    const png = Buffer.alloc(2048, 1).toString('base64');
    const pdf = Buffer.alloc(10240, 2).toString('base64');
    const chat = bodyFor('chat', 'echo', 'x', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
            { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${pdf}` } },
            { type: 'text', text: 'what?' },
          ],
        },
      ],
    });
    const chatAnswer = (await (await post(gateway(), 'chat', chat)).json()) as any;
    expect(chatAnswer.choices[0].message.content).toBe('[image image/png 2048 bytes]\n[pdf report.pdf 10240 bytes]\nwhat?');
    const messages = bodyFor('messages', 'echo', 'x', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: png } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'report.pdf' },
          ],
        },
      ],
    });
    const answer = (await (await post(gateway(), 'messages', messages)).json()) as any;
    expect(answer.content[0].text).toBe('[image image/jpeg 2048 bytes]\n[pdf report.pdf 10240 bytes]');
  });
});
