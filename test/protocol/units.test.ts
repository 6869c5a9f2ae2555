import { describe, expect, it } from 'vitest';
import { ResultAccumulator, textPartsOf } from '../../src/protocol/accumulate.js';
import { describeErrorBody, describeStreamError } from '../../src/protocol/error-body.js';
import type { FinishReason } from '../../src/protocol/events.js';
import { normalizeFinishReason } from '../../src/protocol/finish-reason.js';
import { otherMaxTokensField, requiresMaxTokens } from '../../src/protocol/max-tokens-field.js';
import { parseChatResponse } from '../../src/protocol/openai-chat.js';
import { parseMessagesResponse } from '../../src/protocol/anthropic-messages.js';

describe('normalizeFinishReason', () => {
  it.each<[string, FinishReason]>([
    ['stop', 'stop'], ['length', 'length'], ['tool_calls', 'tool_calls'], ['function_call', 'tool_calls'],
    ['content_filter', 'content_filter'], ['end_turn', 'stop'], ['stop_sequence', 'stop'], ['pause_turn', 'stop'],
    ['max_tokens', 'length'], ['model_context_window_exceeded', 'length'], ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'], ['eos', 'stop'], ['toString', 'stop'], ['', 'stop'],
  ])('%s → %s', (raw, want) => {
    expect(normalizeFinishReason(raw)).toBe(want);
  });
});

describe('ResultAccumulator', () => {
  it('folds text, reasoning, tool calls, model and usage (null never erases)', () => {
    const acc = new ResultAccumulator();
    acc.add({ type: 'model', model: 'm' });
    acc.add({ type: 'reasoning', delta: 'think ' });
    acc.add({ type: 'reasoning', delta: 'more' });
    acc.add({ type: 'text', delta: 'Hel' });
    expect(acc.text).toBe('Hel');
    acc.add({ type: 'text', delta: 'lo' });
    acc.add({ type: 'usage', input_tokens: 10, output_tokens: null });
    acc.add({ type: 'usage', input_tokens: null, output_tokens: 3 });
    acc.add({ type: 'tool_call', id: 'a', name: 'f', arguments: { x: 1 } });
    acc.add({ type: 'finish', reason: 'tool_calls', raw: 'tool_use' });
    expect(acc.result({ api: 'messages', cid: 'c1', outcome: 'complete' })).toEqual({
      text: 'Hello',
      reasoning: 'think more',
      tool_calls: [{ id: 'a', name: 'f', arguments: { x: 1 } }],
      finish_reason: 'tool_calls',
      raw_finish_reason: 'tool_use',
      usage: { input_tokens: 10, output_tokens: 3, cache_read_tokens: null, cache_write_tokens: null },
      model: 'm',
      api: 'messages',
      cid: 'c1',
      cost: null,
    });
  });

  it('every result reads its text through one shared getter (one hidden class for all: a getter per result made each its own, and a 100 000-line batch promoted every one to the old space)', () => {
    const results = ['a', 'b'].map((delta) => {
      const acc = new ResultAccumulator();
      acc.add({ type: 'text', delta });
      return acc.result({ api: 'chat', cid: null, outcome: 'complete' });
    });
    const [a, b] = results.map((r) => Object.getOwnPropertyDescriptor(r, 'text'));
    expect(a?.get).toBeTypeOf('function');
    expect(a?.get).toBe(b?.get);
    expect(a).toMatchObject({ enumerable: true, configurable: true, set: undefined });
    // Still an own, enumerable, first property: spread and JSON.stringify see it as before.
    expect(Object.keys(results[0]!)[0]).toBe('text');
    expect({ ...results[1]! }.text).toBe('b');
    expect(JSON.parse(JSON.stringify(results[0]))).toMatchObject({ text: 'a' });
    expect(textPartsOf(results[0]!)).toEqual(['a']);
  });

  it('is empty and null-filled with no events (the finish reason says why it ended)', () => {
    expect(new ResultAccumulator().result({ api: 'chat', cid: null, outcome: 'interrupted' })).toEqual({
      text: '', reasoning: null, tool_calls: [], finish_reason: 'error', raw_finish_reason: null,
      usage: { input_tokens: null, output_tokens: null, cache_read_tokens: null, cache_write_tokens: null }, model: null, api: 'chat', cid: null, cost: null,
    });
  });

  it.each<['complete' | 'error' | 'cancelled' | 'interrupted', boolean, FinishReason]>([
    ['complete', false, 'stop'], ['complete', true, 'tool_calls'], ['error', true, 'error'],
    ['cancelled', true, 'cancelled'], ['interrupted', false, 'error'], ['interrupted', true, 'tool_calls'],
  ])('without a model reason, outcome %s (tool calls: %s) → %s', (outcome, withTools, want) => {
    const acc = new ResultAccumulator();
    acc.add({ type: 'text', delta: 'x' });
    if (withTools) acc.add({ type: 'tool_call', id: 'i', name: 'n', arguments: {} });
    const r = acc.result({ api: 'chat', cid: null, outcome });
    expect(r.finish_reason).toBe(want);
    expect(r.raw_finish_reason).toBeNull();
  });

  it("keeps the model's reason over the outcome", () => {
    const acc = new ResultAccumulator();
    acc.add({ type: 'finish', reason: 'length', raw: 'length' });
    expect(acc.result({ api: 'chat', cid: null, outcome: 'error' }).finish_reason).toBe('length');
  });

  it('keepText false counts the answer without holding it; reasoning blocks and text parts as they came', () => {
    const counted = new ResultAccumulator({ keepText: false });
    expect(counted.hasText).toBe(false);
    counted.add({ type: 'text', delta: '' });
    expect(counted.hasText).toBe(false);
    counted.add({ type: 'text', delta: 'long answer' });
    expect(counted.hasText).toBe(true);
    expect(counted.result({ api: 'chat', cid: null, outcome: 'complete' }).text).toBe('');
    const acc = new ResultAccumulator();
    const block = { type: 'thinking', thinking: 'hm', signature: 's' };
    acc.add({ type: 'reasoning', delta: '', block });
    acc.add({ type: 'reasoning', delta: '' });
    expect(acc.reasoningBlocks).toEqual([block]);
    expect(acc.reasoning).toBeNull();
    acc.add({ type: 'text', delta: 'a' });
    acc.add({ type: 'text', delta: '' });
    acc.add({ type: 'text', delta: 'b' });
    acc.add({ type: 'error', code: null, message: 'x', status: null });
    const result = acc.result({ api: 'chat', cid: null, outcome: 'complete' });
    expect(textPartsOf(result)).toEqual(['a', 'b']);
    expect(result.text).toBe('ab');
    expect(textPartsOf({ ...result })).toBeUndefined();
  });

  it('handles 100k small deltas', () => {
    const acc = new ResultAccumulator();
    for (let i = 0; i < 100_000; i++) acc.add({ type: 'text', delta: 'ab' });
    expect(acc.text.length).toBe(200_000);
  });
});

describe('describeErrorBody', () => {
  it.each<[string, string, string | undefined, Partial<ReturnType<typeof describeErrorBody>>]>([
    ['OpenAI envelope', '{"error":{"message":"Bad key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}', 'application/json', { message: 'Bad key', code: 'invalid_api_key', type: 'invalid_request_error', param: null }],
    ['Anthropic envelope', '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'application/json', { message: 'Overloaded', type: 'overloaded_error', code: null }],
    ['plain message', '{"message":"quota exceeded"}', undefined, { message: 'quota exceeded' }],
    ['detail string', '{"detail":"Not Found"}', 'application/json', { message: 'Not Found' }],
    ['detail list', '{"detail":[{"loc":["body"],"msg":"field required"}]}', 'application/json', { message: 'field required' }],
    ['error string', '{"error":"model not loaded"}', 'application/json', { message: 'model not loaded' }],
    ['empty', '', 'text/plain', { message: '', code: null, type: null, param: null }],
    ['whitespace', '  \n', undefined, { message: '' }],
    ['plain text', '\nupstream connect error or disconnect/reset before headers\nsecond line', 'text/plain', { message: 'upstream connect error or disconnect/reset before headers' }],
    ['OpenRouter object raw', '{"error":{"code":502,"message":"Provider returned error","metadata":{"raw":{"error":{"message":"model overloaded"}},"provider_name":"P"}}}', undefined, { message: 'Provider returned error: model overloaded', code: 502 }],
    ['OpenRouter object raw, no message of its own', '{"error":{"metadata":{"raw":{"message":"upstream timed out"}}}}', undefined, { message: 'upstream timed out' }],
    ['OpenRouter JSON raw', '{"error":{"code":400,"message":"Provider returned error","metadata":{"raw":"{\\"error\\":{\\"message\\":\\"context too long\\"}}"}}}', undefined, { message: 'Provider returned error: context too long', code: 400 }],
  ])('%s', (_name, body, type, want) => {
    expect(describeErrorBody(body, type)).toMatchObject(want);
  });

  it('summarises an HTML page to its title and never dumps markup', () => {
    const page = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
    expect(describeErrorBody(page, 'text/html').message).toBe('HTML error page: 502 Bad Gateway');
  });

  it('falls back to the first heading, then to text, for HTML without a title', () => {
    expect(describeErrorBody('<!DOCTYPE html><body><h2>Service &amp; API Unavailable</h2></body>', undefined).message).toBe('HTML error page: Service & API Unavailable');
    const noHeading = describeErrorBody('<html><body><script>var x=1</script><p>Oops</p></body></html>', 'text/html; charset=utf-8').message;
    expect(noHeading).toBe('HTML error page: Oops');
    expect(noHeading).not.toMatch(/[<>]/);
  });

  it('unwraps an upstream JSON error inside a message string and drops the stack trace', () => {
    const inner = JSON.stringify({ error: { message: 'context too long', type: 'invalid_request_error' } });
    const text = `Error from provider(p,m: 400): ${inner}Error: Error from provider(p,m: 400): ${inner}\n    at qn (/srv/app/cli.js:582:7451)\n    at async cN (file:///srv/app/cli.js:9:1)`;
    expect(describeErrorBody(JSON.stringify({ error: { message: text, type: 'api_error' } }), 'application/json').message).toBe(
      'Error from provider(p,m: 400): context too long',
    );
    // A stack header that does not repeat the message stays (it is the message); frames and locations go.
    expect(describeErrorBody(JSON.stringify({ message: 'TypeError: x is undefined\n    at f (/a/b.js:1:2)' }), undefined).message).toBe('TypeError: x is undefined');
    expect(describeErrorBody(JSON.stringify({ message: 'fetch failedTypeError: fetch failed\n    at node:internal/deps/undici/undici:1:2' }), undefined).message).toBe('fetch failed');
    // Only a header repeating the words before it is a trace: "Upstream Error: …" is a whole message.
    expect(describeErrorBody('{"error":{"message":"Upstream Error: model overloaded"}}', undefined).message).toBe('Upstream Error: model overloaded');
  });

  it('keeps what only looks like a location or JSON: a URL with a port, braces in prose', () => {
    expect(describeErrorBody('{"error":{"message":"cannot reach http://10.0.0.2:8080/v1 (ECONNREFUSED)"}}', undefined).message).toBe(
      'cannot reach http://10.0.0.2:8080/v1 (ECONNREFUSED)',
    );
    expect(describeErrorBody('{"error":{"message":"field {name} is required"}}', undefined).message).toBe('field {name} is required');
  });

  it('gives one line of about 300 characters at most, keeping the innermost message over the wrapper', () => {
    const long = 'y'.repeat(280);
    const wrapped = describeErrorBody(JSON.stringify({ error: { message: `Error from provider(p,m: 500): ${JSON.stringify({ error: { message: long } })}` } }), undefined);
    expect(wrapped.message).toBe(long);
    const huge = describeErrorBody(JSON.stringify({ error: { message: `line one\nline two ${'z'.repeat(1000)}` } }), undefined).message;
    expect(huge.length).toBeLessThanOrEqual(300);
    expect(huge).toMatch(/^line one line two z+…$/);
  });

  it('clips long plain text to about 200 characters', () => {
    const info = describeErrorBody('x'.repeat(5000), 'text/plain');
    expect(info.message.length).toBeLessThanOrEqual(200);
  });
});

describe('describeStreamError', () => {
  it('reads the error envelopes found inside streams', () => {
    expect(describeStreamError({ error: { message: 'm', code: 'c', status_code: 502 } })).toEqual({ code: 'c', message: 'm', status: 502 });
    expect(describeStreamError({ code: 429, message: 'slow down' })).toEqual({ code: 429, message: 'slow down', status: 429 });
    expect(describeStreamError('boom\nmore')).toEqual({ code: null, message: 'boom', status: null });
    expect(describeStreamError({ error: {} }).message).toMatch(/stream error/);
    expect(describeStreamError(7).message).toMatch(/stream error/);
  });

  it("reads claude-code-router's error event: the message under `message`, itself JSON", () => {
    const payload = { type: 'error', message: { type: 'api_error', message: '{"code":502,"message":"upstream said no"}' } };
    expect(describeStreamError(payload)).toEqual({ code: 'api_error', message: 'upstream said no', status: null });
  });
});

describe('requiresMaxTokens', () => {
  it('a 400 naming max_tokens as required or missing', () => {
    expect(requiresMaxTokens(400, { message: 'anthropic error: max_tokens: Field required', param: null })).toBe(true);
    expect(requiresMaxTokens(400, { message: 'this field is missing', param: 'max_tokens' })).toBe(true);
    expect(requiresMaxTokens(400, { message: 'max_tokens must be provided', param: null })).toBe(true);
    expect(requiresMaxTokens(400, { message: 'max_tokens must be set', param: null })).toBe(true);
    expect(requiresMaxTokens(422, { message: 'max_tokens: Field required', param: 'max_tokens' })).toBe(false);
    expect(requiresMaxTokens(400, { message: 'max_tokens is too large', param: 'max_tokens' })).toBe(false);
    expect(requiresMaxTokens(400, { message: 'max_completion_tokens: Field required', param: null })).toBe(false);
    expect(requiresMaxTokens(400, { message: 'messages: Field required', param: 'messages' })).toBe(false);
  });
});

describe('otherMaxTokensField', () => {
  const recorded = { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", param: 'max_tokens' };
  it('switches on the recorded OpenAI 400', () => {
    expect(otherMaxTokensField(400, recorded, 'max_tokens')).toBe('max_completion_tokens');
  });
  it('switches back the other way', () => {
    expect(otherMaxTokensField(400, { message: "Unsupported parameter: 'max_completion_tokens'. Use 'max_tokens' instead.", param: null }, 'max_completion_tokens')).toBe('max_tokens');
    expect(otherMaxTokensField(400, { message: 'Unrecognized request argument supplied: max_completion_tokens', param: null }, 'max_completion_tokens')).toBe('max_tokens');
    expect(otherMaxTokensField(400, { message: 'bad', param: 'max_tokens' }, 'max_completion_tokens')).toBe('max_tokens');
  });
  it('does not switch for other statuses or unrelated 400s', () => {
    expect(otherMaxTokensField(422, recorded, 'max_tokens')).toBeNull();
    expect(otherMaxTokensField(400, { message: 'max_tokens is too large: 999999', param: 'max_tokens' }, 'max_tokens')).toBeNull();
    expect(otherMaxTokensField(400, { message: 'temperature out of range', param: 'temperature' }, 'max_tokens')).toBeNull();
    // The field we already use is named, but max_completion_tokens must not match max_tokens.
    expect(otherMaxTokensField(400, { message: 'max_completion_tokens must be positive', param: null }, 'max_completion_tokens')).toBeNull();
  });
  it('matches whole field names only: a longer name that starts with the field is another field', () => {
    // A substring match would read `max_tokens` inside `max_tokens_limit` and switch for nothing.
    expect(otherMaxTokensField(400, { message: 'max_tokens_limit exceeded for this account', param: null }, 'max_completion_tokens')).toBeNull();
    expect(otherMaxTokensField(400, { message: 'Unsupported value: max_completion_tokens_cap', param: null }, 'max_tokens')).toBeNull();
    expect(otherMaxTokensField(400, { message: 'Unsupported parameter: x_max_tokens', param: null }, 'max_tokens')).toBeNull();
  });
});

describe('non-stream bodies', () => {
  it('turn a top-level error object into an error event', () => {
    expect(parseChatResponse({ error: { message: 'nope', code: 'x' } })).toEqual([{ type: 'error', code: 'x', message: 'nope', status: null }]);
    expect(parseMessagesResponse({ type: 'error', error: { type: 'api_error', message: 'bad' } })).toEqual([{ type: 'error', code: 'api_error', message: 'bad', status: null }]);
    expect(parseChatResponse('nope')[0]).toMatchObject({ type: 'error' });
  });
  it('treat null content as empty text', () => {
    expect(parseChatResponse({ choices: [{ message: { content: null }, finish_reason: 'stop' }] })).toEqual([{ type: 'finish', reason: 'stop', raw: 'stop' }]);
  });
});
