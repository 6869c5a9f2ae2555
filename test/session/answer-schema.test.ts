// --schema answers checked with ajv (SPEC §12): what a match, a mismatch and a bad schema say.
import { describe, expect, it } from 'vitest';
import { compileAnswerSchema, schemaMismatchError, validateAnswer } from '../../src/session/answer-schema.js';

const book = { type: 'object', properties: { title: { type: 'string' }, year: { type: 'integer' } }, required: ['title'], additionalProperties: false };

describe('compileAnswerSchema', () => {
  it('a matching answer gives its document; a mismatch names the first violation and where', async () => {
    const check = await compileAnswerSchema(book);
    expect(check('{"title":"Dune","year":1965}')).toEqual({ ok: true, data: { title: 'Dune', year: 1965 } });
    expect(check('{"title":"Dune","year":"1965"}')).toEqual({ ok: false, data: { title: 'Dune', year: '1965' }, message: 'the answer does not match the schema: /year must be integer' });
    expect(check('{}')).toEqual({ ok: false, data: {}, message: "the answer does not match the schema: (root) must have required property 'title'" });
    expect(check('{"title":"x","isbn":1}')).toMatchObject({ ok: false, message: 'the answer does not match the schema: (root) must NOT have additional properties (isbn)' });
    expect(check('not json')).toEqual({ ok: false, data: null, message: 'the answer is not JSON' });
  });

  it('takes draft 2020-12 schemas (prefixItems) and refuses one ajv cannot compile as a usage error', async () => {
    const pair = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false };
    expect(await validateAnswer(pair, '["a",1]')).toEqual({ ok: true, data: ['a', 1] });
    expect(await validateAnswer(pair, '["a",1,2]')).toMatchObject({ ok: false });
    await expect(compileAnswerSchema({ type: 'no-such-type' })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--schema: not a usable JSON Schema: /) });
  });

  it('a mismatch ends with exit 9, saying the answer is on stdout', () => {
    const error = schemaMismatchError({ ok: false, data: null, message: 'the answer is not JSON' });
    expect(error).toMatchObject({ exitCode: 9, message: 'the answer is not JSON', hint: 'the answer is on stdout as it came' });
  });
});
