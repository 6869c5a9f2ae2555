import { describe, expect, it } from 'vitest';
import { buildMessagesRequest } from '../../src/protocol/anthropic-messages.js';
import type { RequestOptions, ToolDefinition } from '../../src/protocol/events.js';
import { buildChatRequest } from '../../src/protocol/openai-chat.js';
import { parseFieldList, parseSchemaOption } from '../../src/protocol/schema.js';

const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false };

describe('parseFieldList', () => {
  it('reads names, types and descriptions, every field required', () => {
    expect(parseFieldList('name, age int, tags: short labels')).toEqual({
      ok: true,
      schema: {
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'string', description: 'short labels' } },
        required: ['name', 'age', 'tags'],
        additionalProperties: false,
      },
    });
  });

  it('knows float and bool, and splits on newlines when there are some (descriptions may hold commas)', () => {
    const parsed = parseFieldList('score float: from 0, to 1\nok bool');
    expect(parsed).toMatchObject({ ok: true, schema: { properties: { score: { type: 'number', description: 'from 0, to 1' }, ok: { type: 'boolean' } } } });
  });

  it('names the problem: unknown type, bad name, repeated field, nothing given', () => {
    expect(parseFieldList('age integer')).toEqual({ ok: false, message: 'unknown type "integer" for field age (str, int, float or bool)' });
    expect(parseFieldList('1st')).toMatchObject({ ok: false, message: expect.stringContaining('"1st" is not a field name') });
    expect(parseFieldList('a, a int')).toEqual({ ok: false, message: 'field a is given twice' });
    expect(parseFieldList(' , ')).toEqual({ ok: false, message: 'no fields given' });
    // Three words, every one of them readable, is still not a field (name, type, and then what?).
    expect(parseFieldList('name str extra')).toEqual({ ok: false, message: 'cannot read the field "name str extra" (expected: name [type][: description])' });
    expect(parseFieldList('a, age int long: years')).toMatchObject({ ok: false, message: expect.stringContaining('"age int long: years"') });
  });
});

describe('parseSchemaOption', () => {
  it('takes inline JSON, then a file that exists, then the field list', () => {
    expect(parseSchemaOption(JSON.stringify(schema))).toEqual({ ok: true, schema });
    const files: Record<string, string> = { 's.json': JSON.stringify(schema) };
    expect(parseSchemaOption('s.json', (p) => files[p])).toEqual({ ok: true, schema });
    expect(parseSchemaOption('title', (p) => files[p])).toMatchObject({ ok: true, schema: { properties: { title: { type: 'string' } } } });
  });

  it('refuses broken JSON, a broken file and a root that is not an object', () => {
    expect(parseSchemaOption('{"type":')).toEqual({ ok: false, message: 'the inline schema is not valid JSON' });
    expect(parseSchemaOption('bad.json', () => 'nope')).toEqual({ ok: false, message: 'bad.json is not valid JSON' });
    expect(parseSchemaOption('{"type":"array"}')).toMatchObject({ ok: false, message: expect.stringContaining('must describe an object') });
  });
});

describe('request shapes', () => {
  const base: RequestOptions = { model: 'm', messages: [{ role: 'user', content: 'film?' }], maxTokensField: 'max_tokens', stream: true, schema };

  it('Chat Completions: response_format json_schema named answer, strict', () => {
    for (const stream of [true, false]) {
      expect(buildChatRequest({ ...base, stream })).toEqual({
        model: 'm',
        messages: [{ role: 'user', content: 'film?' }],
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
      });
    }
  });

  it('Messages: a single answer tool with the schema as input_schema, and tool_choice forcing it', () => {
    const tools: ToolDefinition[] = [{ type: 'function', function: { name: 'other' } }];
    for (const stream of [true, false]) {
      expect(buildMessagesRequest({ ...base, stream, tools })).toEqual({
        model: 'm',
        max_tokens: 4096,
        messages: [{ role: 'user', content: 'film?' }],
        stream,
        tools: [{ name: 'answer', input_schema: schema }],
        tool_choice: { type: 'tool', name: 'answer' },
      });
    }
  });

  it('adds nothing without a schema', () => {
    const { schema: _none, ...plain } = base;
    expect(buildChatRequest(plain)).not.toHaveProperty('response_format');
    expect(buildMessagesRequest(plain)).not.toHaveProperty('tool_choice');
  });
});
