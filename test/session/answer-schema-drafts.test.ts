// --schema (SPEC §12): a draft-07 schema is checked as draft-07 (tuple `items`), keywords and
// formats ajv does not know are ignored quietly instead of refusing the schema or warning.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileAnswerSchema, validateAnswer } from '../../src/session/answer-schema.js';

afterEach(() => vi.restoreAllMocks());

describe('compileAnswerSchema: drafts and unknown keywords', () => {
  it('checks a draft-07 tuple (items as an array), whatever its $schema says unless 2020-12', async () => {
    for (const $schema of [undefined, 'http://json-schema.org/draft-07/schema#']) {
      const pair = { ...($schema ? { $schema } : {}), type: 'array', items: [{ type: 'string' }, { type: 'integer' }] };
      expect(await validateAnswer(pair, '["a",1]'), String($schema)).toEqual({ ok: true, data: ['a', 1] });
      expect(await validateAnswer(pair, '["a","b"]'), String($schema)).toEqual({ ok: false, data: ['a', 'b'], message: 'the answer does not match the schema: /1 must be integer' });
    }
  });

  it('ignores keywords and formats it does not know, without a word on the console', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const check = await compileAnswerSchema({ type: 'object', 'x-note': 'ours', properties: { mail: { type: 'string', format: 'email', 'x-ui': 'wide' } } });
    expect(check('{"mail":"not an address"}')).toEqual({ ok: true, data: { mail: 'not an address' } });
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });
});
