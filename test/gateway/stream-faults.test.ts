// Fault models that break an answer after it began: what bytes arrive, and how the response ends.
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/server.js';
import { type Api, bodyFor, chatText, messagesText, parseSse, payloads, post, readAll, useGateway, asAny } from './support.js';

const gateway = useGateway();
const apis: Api[] = ['chat', 'messages'];

function textOf(api: Api, raw: string): string {
  return api === 'chat' ? chatText(payloads(raw)) : messagesText(payloads(raw));
}

describe.each(apis)('%s: faults inside the stream', (api) => {
  const stream = (model: string, extra: Record<string, unknown> = {}) => post(gateway(), api, bodyFor(api, model, 'x', { stream: true, ...extra }));

  it('drop-after-N: N words, then a reset connection with no end marker', async () => {
    const res = await stream('drop-after-3');
    expect(res.status).toBe(200);
    const { text, error } = await readAll(res);
    expect(error).not.toBeNull();
    expect((error as any).cause?.code).toBe('ECONNRESET');
    expect(textOf(api, text)).toBe('Lorem ipsum dolor');
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('message_stop');
    expect(text).not.toContain('finish_reason":"');
  });

  it('drop-after-N without streaming: headers and half a JSON body, then a reset', async () => {
    const res = await post(gateway(), api, bodyFor(api, 'drop-after-3'));
    expect(res.status).toBe(200);
    const length = Number(res.headers.get('content-length'));
    const { text, error } = await readAll(res);
    expect(error).not.toBeNull();
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(length);
    expect(text.startsWith('{"id":')).toBe(true);
  });

  it('stall-after-N: N words, then silence until the client gives up', async () => {
    const controller = new AbortController();
    const res = await stream('stall-after-2', {});
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (textOf(api, text) !== 'Lorem ipsum') text += decoder.decode((await reader.read()).value, { stream: true });
    const timer = setTimeout(() => controller.abort(), 300);
    controller.signal.addEventListener('abort', () => void reader.cancel());
    const next = await reader.read(); // nothing more comes: only our cancel ends this read
    clearTimeout(timer);
    expect(controller.signal.aborted).toBe(true);
    expect(next.done).toBe(true);
    expect(textOf(api, text)).toBe('Lorem ipsum');
  });

  it('stall-after-N without streaming: headers, then silence', async () => {
    const controller = new AbortController();
    const res = await post(gateway(), api, bodyFor(api, 'stall-after-2'), { signal: controller.signal });
    expect(res.status).toBe(200);
    setTimeout(() => controller.abort(), 300);
    const { text, error } = await readAll(res);
    expect(error?.name).toBe('AbortError');
    expect(text).toBe('');
  });

  it('eof-after-N: N words, then a clean end with no finish and no end marker', async () => {
    const { text, error } = await readAll(await stream('eof-after-4'));
    expect(error).toBeNull();
    expect(textOf(api, text)).toBe('Lorem ipsum dolor sit');
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('"finish_reason":"');
    expect(text).not.toContain('message_delta');
    expect(text).not.toContain('message_stop');
  });

  it('eof-after-N without streaming: a cleanly ended, truncated JSON body', async () => {
    const { text, error } = await readAll(await post(gateway(), api, bodyFor(api, 'eof-after-4')));
    expect(error).toBeNull();
    expect(text.startsWith('{"id":')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('no-done: the whole answer with its finish, no end marker, clean EOF', async () => {
    const { text, error } = await readAll(await post(gateway(), api, bodyFor(api, 'no-done', 'all of it', { stream: true })));
    expect(error).toBeNull();
    expect(textOf(api, text)).toBe('all of it');
    const events = payloads(text);
    if (api === 'chat') {
      expect(events.at(-1).choices[0].finish_reason).toBe('stop');
      expect(text).not.toContain('[DONE]');
    } else {
      expect(events.at(-1)).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'end_turn' } });
      expect(text).not.toContain('message_stop');
    }
  });

  it('error-event: a few words, then an `event: error` message, then the end', async () => {
    const { text, error } = await readAll(await stream('error-event'));
    expect(error).toBeNull();
    expect(textOf(api, text.slice(0, text.indexOf('event: error')))).toBe('Lorem ipsum dolor');
    const last = parseSse(text).at(-1)!;
    expect(last.event).toBe('error');
    if (api === 'chat') {
      expect(JSON.parse(last.data)).toEqual({ error: { message: expect.stringContaining('error-event'), type: 'server_error', code: 'overloaded' } });
      expect(text).not.toContain('[DONE]');
    } else {
      expect(last.data).toBe('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
      expect(text).not.toContain('message_stop');
    }
  });

  it('error-chunk: a few words, then an error object in a data payload', async () => {
    const { text } = await readAll(await stream('error-chunk'));
    const messages = parseSse(text);
    if (api === 'chat') {
      expect(messages.at(-1)!.data).toBe('[DONE]');
      const errorChunk = JSON.parse(messages.at(-2)!.data);
      expect(errorChunk).toEqual({
        id: expect.stringMatching(/^chatcmpl-/),
        object: 'chat.completion.chunk',
        created: expect.any(Number),
        model: 'error-chunk',
        choices: [],
        error: { code: 502, message: expect.stringContaining('error-chunk') },
      });
      expect(messages.every((m) => m.event === null)).toBe(true);
    } else {
      const last = messages.at(-1)!;
      expect(last.event).toBeNull();
      expect(JSON.parse(last.data)).toEqual({ type: 'error', error: { type: 'api_error', message: expect.stringContaining('error-chunk') } });
    }
    expect(textOf(api, text)).toBe('Lorem ipsum dolor');
  });

  it('error-event / error-chunk without streaming', async () => {
    const overloaded = await post(gateway(), api, bodyFor(api, 'error-event'));
    expect(overloaded.status).toBe(api === 'chat' ? 503 : 529);
    const body = await overloaded.json().then(asAny);
    expect(api === 'chat' ? body.error.code : body.error.type).toBe(api === 'chat' ? 'overloaded' : 'overloaded_error');
    const inBody = await post(gateway(), api, bodyFor(api, 'error-chunk'));
    expect(inBody.status).toBe(200);
    const json = await inBody.json().then(asAny);
    expect(api === 'chat' ? json.error.code : json.type).toBe(api === 'chat' ? 502 : 'error');
  });

  it('keepalive-only-N: `: keep-alive` comments first, then the answer', async () => {
    const started = Date.now();
    const { text } = await readAll(await post(gateway(), api, bodyFor(api, 'keepalive-only-1', 'after the wait', { stream: true })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(text.startsWith(': keep-alive\n\n')).toBe(true);
    expect(textOf(api, text)).toBe('after the wait');
  });
});

it('keepalive-only-N without streaming answers after N seconds', async () => {
  const started = Date.now();
  const json = await (await post(gateway(), 'chat', bodyFor('chat', 'keepalive-only-1', 'late'))).json().then(asAny);
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(json.choices[0].message.content).toBe('late');
});

it('close() ends stalled and slow responses instead of waiting for them', async () => {
  const own = await startGateway({ port: 0 });
  const stalled = await post(own, 'chat', bodyFor('chat', 'stall-after-1', 'x', { stream: true }));
  const slow = await post(own, 'messages', bodyFor('messages', 'slow-60000', 'x', { stream: true }));
  // Close only once both have sent their first word (waiting for it, not a fixed sleep).
  let stalledStarted!: () => void;
  let slowStarted!: () => void;
  const started1 = new Promise<void>((resolve) => (stalledStarted = resolve));
  const started2 = new Promise<void>((resolve) => (slowStarted = resolve));
  const stalledRead = readAll(stalled, (text) => text.includes('"Lorem"') && stalledStarted());
  const slowRead = readAll(slow, (text) => text.includes('"Lorem"') && slowStarted());
  await Promise.all([started1, started2]);
  const started = Date.now();
  await own.close();
  expect(Date.now() - started).toBeLessThan(5000);
  const [a, b] = await Promise.all([stalledRead, slowRead]);
  expect(a.error).not.toBeNull();
  expect(b.error).not.toBeNull();
  expect(chatText(payloads(a.text))).toBe('Lorem');
});
