// Batch input lines (SPEC §13), each refusal with its exact message: what a user reads in the
// "status":"invalid" record and in the one-line error of the first pass.
import { describe, expect, it } from 'vitest';
import { parseBatchLine, readLines, type RawLine } from '../../src/session/batch-input.js';

const raw = (text: string, number = 4): RawLine => ({ number, text, tooLong: false });

async function lines(parts: Array<string | Buffer>, maxChars?: number) {
  async function* source() {
    for (const part of parts) yield part;
  }
  const out: RawLine[] = [];
  for await (const line of readLines(source(), maxChars)) out.push(line);
  return out;
}

describe('readLines', () => {
  it('a line of exactly the cap is read; one more character is too long', async () => {
    expect(await lines(['x'.repeat(40), '\n"ok"'], 40)).toEqual([
      { number: 1, text: 'x'.repeat(40), tooLong: false },
      { number: 2, text: '"ok"', tooLong: false },
    ]);
    expect(await lines(['x'.repeat(41), '\n"ok"'], 40)).toEqual([
      { number: 1, text: '', tooLong: true },
      { number: 2, text: '"ok"', tooLong: false },
    ]);
    // Too long at the end of the input, without a newline.
    expect(await lines(['"ok"\n', 'y'.repeat(41)], 40)).toEqual([
      { number: 1, text: '"ok"', tooLong: false },
      { number: 2, text: '', tooLong: true },
    ]);
  });

  it('takes string chunks and byte chunks alike', async () => {
    expect(await lines(['"a"\n"b', Buffer.from('"\n"c"')])).toEqual([
      { number: 1, text: '"a"', tooLong: false },
      { number: 2, text: '"b"', tooLong: false },
      { number: 3, text: '"c"', tooLong: false },
    ]);
  });
});

describe('parseBatchLine', () => {
  it('names a line over the cap in MiB', () => {
    expect(parseBatchLine({ number: 3, text: '', tooLong: true })).toEqual({ kind: 'invalid', line: 3, id: 3, message: 'longer than 8 MiB' });
  });

  it('drops a BOM only at the start of line 1', () => {
    expect(parseBatchLine(raw('\uFEFF"a\uFEFFb"', 1))).toEqual({ kind: 'item', item: { line: 1, id: 1, prompt: 'a\uFEFFb' } });
    expect(parseBatchLine(raw('\uFEFF"x"', 2))).toMatchObject({ kind: 'invalid', line: 2, id: 2, message: expect.stringMatching(/^not JSON: /) });
  });

  it('takes ids that are strings or whole numbers, and every optional field at its edge', () => {
    expect(parseBatchLine(raw('{"id":7,"prompt":"p"}'))).toEqual({ kind: 'item', item: { line: 4, id: 7, prompt: 'p' } });
    expect(parseBatchLine(raw('{"id":"7","prompt":"p"}'))).toEqual({ kind: 'item', item: { line: 4, id: '7', prompt: 'p' } });
    expect(parseBatchLine(raw('{"prompt":"p","temperature":0,"max_tokens":1,"attach":["a","b"],"schema":"title, year int"}'))).toEqual({
      kind: 'item',
      item: { line: 4, id: 4, prompt: 'p', temperature: 0, maxTokens: 1, attach: ['a', 'b'], schema: 'title, year int' },
    });
    expect(parseBatchLine(raw('{"prompt":"p","schema":{},"options":{}}'))).toEqual({ kind: 'item', item: { line: 4, id: 4, prompt: 'p', schema: {}, options: {} } });
  });

  it('refuses each malformed line with its exact message', () => {
    const fields = 'id, prompt, system, model, temperature, max_tokens, attach, schema, options';
    const bad: Array<[string, string]> = [
      ['null', 'expected a JSON string (the prompt) or an object with "prompt"'],
      ['42', 'expected a JSON string (the prompt) or an object with "prompt"'],
      ['[]', 'expected a JSON string (the prompt) or an object with "prompt"'],
      ['"   "', 'empty prompt'],
      ['{"system":"a"}', 'missing "prompt"'],
      ['{"prompt":3}', '"prompt" must be a string'],
      ['{"prompt":"p","promt":"x"}', `unknown field "promt" (fields: ${fields})`],
      ['{"prompt":"p","id":""}', '"id" must be a non-empty string or an integer'],
      ['{"prompt":"p","id":1.5}', '"id" must be a non-empty string or an integer'],
      ['{"prompt":"p","id":true}', '"id" must be a non-empty string or an integer'],
      ['{"prompt":"p","system":3}', '"system" must be a string'],
      ['{"prompt":"p","model":3}', '"model" must be a string'],
      ['{"prompt":"p","model":"two words"}', '"model": a model id has no spaces or control characters, got "two words"'],
      ['{"prompt":"p","temperature":"hot"}', '"temperature" must be a number ≥ 0'],
      ['{"prompt":"p","temperature":1e999}', '"temperature" must be a number ≥ 0'],
      ['{"prompt":"p","temperature":-0.1}', '"temperature" must be a number ≥ 0'],
      ['{"prompt":"p","max_tokens":"9"}', '"max_tokens" must be a whole number ≥ 1'],
      ['{"prompt":"p","max_tokens":1.5}', '"max_tokens" must be a whole number ≥ 1'],
      ['{"prompt":"p","max_tokens":0}', '"max_tokens" must be a whole number ≥ 1'],
      ['{"prompt":"p","attach":[]}', '"attach" must be a path or an array of paths'],
      ['{"prompt":"p","attach":[""]}', '"attach" must be a path or an array of paths'],
      ['{"prompt":"p","attach":["a",""]}', '"attach" must be a path or an array of paths'],
      ['{"prompt":"p","attach":["a",3]}', '"attach" must be a path or an array of paths'],
      ['{"prompt":"p","attach":3}', '"attach" must be a path or an array of paths'],
      ['{"prompt":"p","schema":"  "}', '"schema" must be a JSON Schema object or a string (a path or a field list)'],
      ['{"prompt":"p","schema":null}', '"schema" must be a JSON Schema object or a string (a path or a field list)'],
      ['{"prompt":"p","schema":[]}', '"schema" must be a JSON Schema object or a string (a path or a field list)'],
      ['{"prompt":"p","schema":5}', '"schema" must be a JSON Schema object or a string (a path or a field list)'],
      ['{"prompt":"p","options":null}', '"options" must be a JSON object of request body fields'],
      ['{"prompt":"p","options":[]}', '"options" must be a JSON object of request body fields'],
    ];
    for (const [text, message] of bad) expect(parseBatchLine(raw(text)), text).toEqual({ kind: 'invalid', line: 4, id: 4, message });
  });
});
