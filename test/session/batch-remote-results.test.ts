// Result lines of a remote batch (SPEC §19), one by one: exactly what each kind of line reads as
// (answer, refused with its status, not run), the odd and foreign lines that read as nothing, and
// the outcome each becomes (its error's words, its finish reason, its timings).
import { describe, expect, it } from 'vitest';
import { outcomeOf, parseResultLine, type ResultLine } from '../../src/session/batch-remote-results.js';

const EXPIRED = 'expired: the batch ended before this request ran; rerun to submit it again';
const CANCELLED = 'cancelled: the batch was cancelled before this request ran; rerun to submit it again';

const chat = (line: unknown) => parseResultLine('chat', JSON.stringify(line));
const messages = (line: unknown) => parseResultLine('messages', JSON.stringify(line));

describe('parseResultLine: chat (/files/{id}/content)', () => {
  it('a 2xx response is the answer; any other status is refused with its body', () => {
    expect(chat({ custom_id: 'l1', response: { status_code: 200, body: { id: 'x' } }, error: null })).toEqual({ customId: 'l1', kind: 'answer', body: { id: 'x' } });
    expect(chat({ custom_id: 'l2', response: { status_code: 299, body: 'ok' } })).toEqual({ customId: 'l2', kind: 'answer', body: 'ok' });
    expect(chat({ custom_id: 'l3', response: { status_code: 300, body: { e: 1 } } })).toEqual({ customId: 'l3', kind: 'refused', status: 300, body: { e: 1 } });
    expect(chat({ custom_id: 'l4', response: { status_code: 199, body: null } })).toEqual({ customId: 'l4', kind: 'refused', status: 199, body: null });
  });

  it('no response: expired and cancelled say the request never ran; any other error is the gateway\'s own words (500)', () => {
    expect(chat({ custom_id: 'l1', response: null, error: { code: 'batch_expired', message: 'x' } })).toEqual({ customId: 'l1', kind: 'not-run', how: 'expired', message: EXPIRED });
    expect(chat({ custom_id: 'l2', response: null, error: { code: 'batch_cancelled' } })).toEqual({ customId: 'l2', kind: 'not-run', how: 'cancelled', message: CANCELLED });
    // A response without a status code is no response.
    expect(chat({ custom_id: 'l3', response: { body: {} }, error: { code: 'batch_expired' } })).toEqual({ customId: 'l3', kind: 'not-run', how: 'expired', message: EXPIRED });
    const error = { code: 'server_error', message: 'the worker crashed' };
    expect(chat({ custom_id: 'l4', response: null, error })).toEqual({ customId: 'l4', kind: 'refused', status: 500, body: { error } });
    expect(chat({ custom_id: 'l5' })).toEqual({ customId: 'l5', kind: 'refused', status: 500, body: { error: {} } });
  });

  it('a line that is not a JSON object is not a result', () => {
    for (const text of ['not json', '42', 'null', '"l1"', '[1]']) expect(parseResultLine('chat', text), text).toBeNull();
  });
});

describe('parseResultLine: messages (results_url)', () => {
  it('succeeded is the answer; expired and canceled never ran', () => {
    expect(messages({ custom_id: 'l1', result: { type: 'succeeded', message: { id: 'msg' } } })).toEqual({ customId: 'l1', kind: 'answer', body: { id: 'msg' } });
    expect(messages({ custom_id: 'l2', result: { type: 'expired' } })).toEqual({ customId: 'l2', kind: 'not-run', how: 'expired', message: EXPIRED });
    expect(messages({ custom_id: 'l3', result: { type: 'canceled' } })).toEqual({ customId: 'l3', kind: 'not-run', how: 'cancelled', message: CANCELLED });
  });

  it('errored takes the status its error type stands for, 500 for a type it does not know or no type at all', () => {
    const status = (error: unknown) => (messages({ custom_id: 'l1', result: { type: 'errored', error } }) as Extract<ResultLine, { kind: 'refused' }>).status;
    expect(messages({ custom_id: 'l1', result: { type: 'errored', error: { type: 'error', error: { type: 'not_found_error' } } } })).toEqual({
      customId: 'l1',
      kind: 'refused',
      status: 404,
      body: { type: 'error', error: { type: 'not_found_error' } },
    });
    expect(status({ type: 'error', error: { type: 'billing_error' } })).toBe(402);
    expect(status(undefined)).toBe(500);
    expect(status({ type: 'error' })).toBe(500);
    expect(status({ type: 'error', error: { message: 'no type' } })).toBe(500);
    // Only a type named as text counts, and only Anthropic's own: not a list that prints like one, nor an Object method.
    expect(status({ type: 'error', error: { type: ['invalid_request_error'] } })).toBe(500);
    expect(status({ type: 'error', error: { type: 'constructor' } })).toBe(500);
    expect(status({ type: 'error', error: { type: 'toString' } })).toBe(500);
  });

  it('a line without a result, or of an unknown type, is not a result', () => {
    expect(messages({ custom_id: 'l1' })).toBeNull();
    expect(messages({ custom_id: 'l1', result: 'succeeded' })).toBeNull();
    expect(parseResultLine('messages', '7')).toBeNull();
  });
});

describe('outcomeOf', () => {
  const options = { secrets: [] };

  it('a request that never ran: cancelled (exit 130) or failed (exit 6), with its finish reason and no time spent', () => {
    const cancelled = outcomeOf({ customId: 'l1', kind: 'not-run', how: 'cancelled', message: CANCELLED }, 'chat', options);
    expect(cancelled).toMatchObject({ status: 'cancelled', error: { message: CANCELLED, exitCode: 130 }, result: { finish_reason: 'cancelled', api: 'chat', text: '' } });
    expect(cancelled.timings).toEqual({ firstTokenMs: null, totalMs: 0 });
    const expired = outcomeOf({ customId: 'l1', kind: 'not-run', how: 'expired', message: EXPIRED }, 'messages', options);
    expect(expired).toMatchObject({ status: 'error', error: { message: EXPIRED, exitCode: 6 }, result: { finish_reason: 'error', api: 'messages' } });
    expect(expired.timings).toEqual({ firstTokenMs: null, totalMs: 0 });
  });

  it('a refused request is the HTTP error, finished as an error', () => {
    const refused = outcomeOf({ customId: 'l1', kind: 'refused', status: 400, body: { error: { message: 'bad max_tokens' } } }, 'chat', options);
    expect(refused).toMatchObject({ status: 'error', error: { exitCode: 4, message: 'gateway rejected the request: HTTP 400: bad max_tokens' }, result: { finish_reason: 'error' } });
  });

  it('an answer whose body reports an error is that error, as said in the answer (not in a stream)', () => {
    const body = { error: { message: 'quota used up', code: 'quota' } };
    const failed = outcomeOf({ customId: 'l1', kind: 'answer', body }, 'chat', options);
    expect(failed.status).toBe('error');
    expect(failed.error?.message).toBe('the gateway reported an error in its answer (quota): quota used up');
    expect(failed.result.finish_reason).toBe('error');
  });

  it('a whole answer is complete, timed as nothing spent locally', () => {
    const body = { model: 'm', choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] };
    const done = outcomeOf({ customId: 'l1', kind: 'answer', body }, 'chat', options);
    expect(done).toMatchObject({ status: 'complete', result: { text: 'hi', finish_reason: 'stop' } });
    expect(done.error).toBeUndefined();
    expect(done.timings).toEqual({ firstTokenMs: null, totalMs: 0 });
    // No finish reason given: a complete answer stopped.
    const unsaid = outcomeOf({ customId: 'l1', kind: 'answer', body: { model: 'm', choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: null }] } }, 'chat', options);
    expect(unsaid).toMatchObject({ status: 'complete', result: { text: 'hi', finish_reason: 'stop' } });
  });
});
