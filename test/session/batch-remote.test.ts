// The pieces of a remote batch (SPEC §19) that need no gateway: how a line's id travels as a
// custom_id and comes back, how an input is split at the vendors' per-batch limits, and how each kind
// of result line becomes the output line a local batch would have written.
import { describe, expect, it } from 'vitest';
import { customIdFor, idHash, needsInput, parseCustomId } from '../../src/session/batch-custom-id.js';
import { planBatches } from '../../src/session/batch-remote-plan.js';
import { outcomeOf, parseResultLine } from '../../src/session/batch-remote-results.js';
import type { BatchItem } from '../../src/session/batch-input.js';
import { compileAnswerSchema, type AnswerValidator } from '../../src/session/answer-schema.js';

const MESSAGES_CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('custom_id: the line and its id, there and back', () => {
  const item = (line: number, id: string | number, extra: Partial<BatchItem> = {}): BatchItem => ({ line, id, prompt: 'p', ...extra });

  it.each([
    [item(7, 7), 'l7'],
    [item(7, 42), 'l7-n42'],
    [item(7, -3), 'l7-n-3'],
    [item(7, 'q-1_x'), 'l7-sq-1_x'],
    [item(7, '12'), 'l7-s12'],
  ])('%j → %s → the same line and id', (it_, customId) => {
    expect(customIdFor(it_)).toBe(customId);
    expect(customId).toMatch(MESSAGES_CUSTOM_ID);
    expect(parseCustomId(customId)).toEqual({ line: it_.line, id: it_.id, fromInput: false });
    expect(needsInput(it_)).toBe(false);
  });

  it('an id the pattern cannot carry, or a line with its own schema, is read back from the input (checked by a hash)', () => {
    for (const odd of [item(3, 'has space'), item(3, 'x'.repeat(70)), item(3, 'ok', { schema: 'name' })]) {
      const customId = customIdFor(odd);
      expect(customId).toMatch(MESSAGES_CUSTOM_ID);
      expect(needsInput(odd)).toBe(true);
      expect(parseCustomId(customId)).toEqual({ line: 3, idHash: idHash(odd.id), fromInput: true });
    }
    // "7" and 7 are different ids (as when resuming), so they hash apart.
    expect(idHash('7')).not.toBe(idHash(7));
  });

  it('a custom_id gatechat did not make is null, not a guess', () => {
    for (const foreign of ['request-1', 'l0', 'l7-', 'l7-q1', 'l7-n1.5', 'l7-xnothex', 7, null, 'l99999999999999999']) expect(parseCustomId(foreign)).toBeNull();
  });
});

describe('planBatches: split at the per-batch limits', () => {
  async function* sizes(list: Array<[number, number]>) {
    for (const [line, bytes] of list) yield { line, bytes };
  }

  it('by request count, keeping each batch a run of input lines', async () => {
    const lines = Array.from({ length: 7 }, (_, i): [number, number] => [i + 1, 10]);
    expect(await planBatches(sizes(lines), { requests: 3, bytes: 1_000_000 })).toEqual([
      { first_line: 1, last_line: 3, requests: 3, bytes: 33 },
      { first_line: 4, last_line: 6, requests: 3, bytes: 33 },
      { first_line: 7, last_line: 7, requests: 1, bytes: 11 },
    ]);
  });

  it('by bytes (with room for the envelope); skipped and blank lines leave gaps in the ranges', async () => {
    const plan = await planBatches(sizes([[1, 600], [2, 600], [5, 600], [9, 100]]), { requests: 100, bytes: 1024 + 1300 });
    expect(plan).toEqual([
      { first_line: 1, last_line: 2, requests: 2, bytes: 1202 },
      { first_line: 5, last_line: 9, requests: 2, bytes: 702 },
    ]);
    expect(await planBatches(sizes([]), { requests: 1, bytes: 1 })).toEqual([]);
  });
});

describe('result lines → the output line a local batch writes', () => {
  const outcome = (api: 'chat' | 'messages', line: unknown, answerSchema?: { check: AnswerValidator }) =>
    outcomeOf(parseResultLine(api, JSON.stringify(line))!, api, { secrets: ['sk-secret'], ...(answerSchema ? { answerSchema } : {}) });

  it('chat: an answer decoded like a --no-stream response; a refused request is the HTTP error (message, exit code)', () => {
    const answered = outcome('chat', { custom_id: 'l1', response: { status_code: 200, body: { model: 'm', choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1 } } }, error: null });
    expect(answered).toMatchObject({ status: 'complete', result: { text: 'hi', finish_reason: 'stop', usage: { input_tokens: 3, output_tokens: 1 }, model: 'm', api: 'chat' } });
    const refused = outcome('chat', { custom_id: 'l2', response: { status_code: 429, body: { error: { message: 'slow down, key sk-secret', type: 'rate_limit' } } }, error: null });
    expect(refused.status).toBe('error');
    expect(refused.error).toMatchObject({ exitCode: 5, message: 'gateway rejected the request: HTTP 429: slow down, key [redacted]' });
    expect(outcome('chat', { custom_id: 'l3', response: null, error: { code: 'batch_expired', message: 'x' } })).toMatchObject({ status: 'error', error: { exitCode: 6, message: expect.stringMatching(/^expired: /) } });
    expect(outcome('chat', { custom_id: 'l4', response: null, error: { code: 'batch_cancelled', message: 'x' } })).toMatchObject({ status: 'cancelled', error: { exitCode: 130 } });
  });

  it("messages: errored results take the status their error type stands for; expired and canceled say so", () => {
    const errored = (type: string) => outcome('messages', { custom_id: 'l1', result: { type: 'errored', error: { type: 'error', error: { type, message: 'no' } } } }).error?.exitCode;
    expect([errored('invalid_request_error'), errored('authentication_error'), errored('rate_limit_error'), errored('api_error'), errored('overloaded_error'), errored('something_new')]).toEqual([4, 3, 5, 6, 6, 6]);
    expect(outcome('messages', { custom_id: 'l1', result: { type: 'expired' } })).toMatchObject({ status: 'error', error: { exitCode: 6 } });
    expect(outcome('messages', { custom_id: 'l1', result: { type: 'canceled' } })).toMatchObject({ status: 'cancelled' });
    expect(parseResultLine('messages', '{"custom_id":"l1","result":{"type":"mystery"}}')).toBeNull();
    expect(parseResultLine('chat', 'not json')).toBeNull();
  });

  it('messages with a schema: the forced answer tool is the answer, checked (a mismatch is exit 9 with the data kept)', async () => {
    const check = await compileAnswerSchema({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    const message = (input: unknown) => ({ custom_id: 'l1', result: { type: 'succeeded', message: { model: 'm', content: [{ type: 'tool_use', id: 't', name: 'answer', input }], stop_reason: 'tool_use' } } });
    const good = outcome('messages', message({ n: 2 }), { check });
    expect(good).toMatchObject({ status: 'complete', data: { n: 2 }, result: { text: '{"n":2}', finish_reason: 'stop' } });
    expect(good.error).toBeUndefined();
    expect(outcome('messages', message({ n: 'two' }), { check })).toMatchObject({ status: 'complete', data: { n: 'two' }, error: { exitCode: 9 } });
  });
});
