import { gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { streamChat, type StreamChatOptions, type StreamOutcome } from '../../src/client/chat-stream.js';
import { streamChatWithFallback } from '../../src/client/fallback.js';
import type { ChatEvent, RequestOptions } from '../../src/protocol/events.js';
import { HttpError, NetworkError, StreamInterruptedError } from '../../src/transport/errors.js';
import { isAbortError } from '../../src/transport/http.js';
import { connection, failure, json, useLoopbackServers, sleep } from '../transport/loopback.js';

const server = useLoopbackServers();

const request = (patch: Partial<RequestOptions> = {}): RequestOptions => ({
  model: 'm1',
  messages: [{ role: 'user', content: 'hi' }],
  maxTokens: 100,
  maxTokensField: 'max_tokens',
  stream: true,
  ...patch,
});

async function collect(opts: StreamChatOptions): Promise<{ events: ChatEvent[]; outcome: StreamOutcome }> {
  const events: ChatEvent[] = [];
  const gen = streamChat(opts);
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, outcome: step.value };
    events.push(step.value);
  }
}

const textOf = (events: ChatEvent[]): string => events.map((e) => (e.type === 'text' ? e.delta : '')).join('');

/** Writes the pieces with small pauses, so the client sees them as separate chunks. */
async function writeSse(res: ServerResponse, pieces: Array<string | Buffer>, headers: Record<string, string> = {}): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
  for (const piece of pieces) {
    res.write(piece);
    await sleep(5);
  }
  res.end();
}

const chatChunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  JSON.stringify({ id: 'c1', model: 'm1', choices: [{ index: 0, delta, finish_reason: finish }] });

describe('streamChat over Chat Completions SSE', () => {
  it('decodes events split across writes, with keep-alive comments and a UTF-8 char cut in two', async () => {
    const euro = Buffer.from('€');
    const body = `data: ${chatChunk({ content: 'Hello €' })}\n\n: keep-alive\n\ndata: ${chatChunk({ content: ' world' }, 'stop')}\n\ndata: [DONE]\n\n`;
    const bytes = Buffer.from(body);
    const cut = bytes.indexOf(euro) + 1; // inside the euro sign
    const s = await server(async (_q, res) => writeSse(res, [bytes.subarray(0, 10), bytes.subarray(10, cut), bytes.subarray(cut, cut + 30), bytes.subarray(cut + 30)]));
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(textOf(events)).toBe('Hello € world');
    expect(events).toContainEqual({ type: 'finish', reason: 'stop', raw: 'stop' });
    expect(outcome).toEqual({ termination: 'end_marker', maxTokensField: 'max_tokens', maxTokens: 100, learned: {}, requestId: null });
    const sent = JSON.parse(s.requests[0].body);
    expect(s.requests[0].url).toBe('/v1/chat/completions');
    expect(sent).toMatchObject({ model: 'm1', stream: true, max_tokens: 100 });
  });

  it('text deltas that arrive in one read go on as one event counting its pieces; a later read is never held back for them', async () => {
    const three = [' one', ' two', ' three'].map((t) => `data: ${chatChunk({ content: t })}\n\n`).join('');
    const thinking = ['a', 'b'].map((t) => `data: ${chatChunk({ reasoning_content: t })}\n\n`).join('');
    // The rest is written only once the first read's text has come out of streamChat: a pause alone
    // let a loaded machine deliver both writes in one read. Held back for a later read, it never would.
    let firstTextSeen!: () => void;
    const seen = new Promise<void>((resolve) => (firstTextSeen = resolve));
    const s = await server(async (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(thinking + three);
      await seen;
      res.end(`data: ${chatChunk({ content: ' four' }, 'stop')}\n\ndata: [DONE]\n\n`);
    });
    const events: ChatEvent[] = [];
    for await (const event of streamChat({ conn: connection(s.url), api: 'chat', request: request() })) {
      events.push(event);
      if (event.type === 'text') firstTextSeen();
    }
    const deltas = events.filter((e) => e.type === 'text' || e.type === 'reasoning');
    expect(deltas).toEqual([
      // `pieces`: the chat's status line counts deltas as tokens until usage arrives.
      { type: 'reasoning', delta: 'ab', pieces: 2 },
      { type: 'text', delta: ' one two three', pieces: 3 },
      { type: 'text', delta: ' four' },
    ]);
  });

  it('[DONE] without a final blank line still ends the stream', async () => {
    const s = await server(async (_q, res) => writeSse(res, [`data: ${chatChunk({ content: 'ok' }, 'stop')}\n\n`, 'data: [DONE]']));
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(textOf(events)).toBe('ok');
    expect(outcome.termination).toBe('end_marker');
  });

  it('gzip-compressed stream', async () => {
    const s = await server(async (_q, res) => {
      const gz = gzipSync(`data: ${chatChunk({ content: 'zipped' }, 'stop')}\n\ndata: [DONE]\n\n`);
      await writeSse(res, [gz.subarray(0, 20), gz.subarray(20)], { 'content-encoding': 'gzip' });
    });
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(textOf(events)).toBe('zipped');
    expect(outcome.termination).toBe('end_marker');
  });

  it('clean EOF without an end marker or finish: truncated', async () => {
    const s = await server(async (_q, res) => writeSse(res, [`data: ${chatChunk({ content: 'par' })}\n\n`]));
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(textOf(events)).toBe('par');
    expect(outcome.termination).toBe('truncated');
  });

  it('reset after the answer began: partial events, then StreamInterruptedError; never re-sent', async () => {
    const s = await server(async (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chatChunk({ content: 'partial' })}\n\n`);
      await sleep(50);
      res.socket?.destroy();
    });
    const events: ChatEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const e of streamChat({ conn: connection(s.url), api: 'chat', request: request() })) events.push(e);
      })(),
    );
    expect(textOf(events)).toBe('partial');
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error.exitCode).toBe(8);
    expect(s.requests).toHaveLength(1);
  });

  it('idle timeout mid-stream: NetworkError idle', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chatChunk({ content: 'a' })}\n\n`);
    });
    const conn = connection(s.url, { timeouts: { connectMs: 1000, headersMs: 1000, idleMs: 300 } });
    const error = await failure(collect({ conn, api: 'chat', request: request() }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.phase).toBe('idle');
    expect(error.exitCode).toBe(7);
  });

  it('an error event inside a 200 stream: termination error', async () => {
    const s = await server(async (_q, res) =>
      writeSse(res, [`data: ${chatChunk({ content: 'x' })}\n\n`, `event: error\ndata: {"error":{"message":"upstream died","code":502}}\n\n`, 'data: [DONE]\n\n']),
    );
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: 'upstream died' });
    expect(outcome.termination).toBe('error');
  });

  it('breaking out of the loop aborts the request', async () => {
    let closed = false;
    let endedByServer = false;
    let onClosed: () => void = () => {};
    const serverSawClose = new Promise<void>((resolve) => (onClosed = resolve));
    const s = await server(async (req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => {
        closed = true;
        endedByServer = res.writableFinished;
        onClosed();
      });
      for (let i = 0; i < 200 && !closed; i++) {
        res.write(`data: ${chatChunk({ content: `${i} ` })}\n\n`);
        await sleep(20);
      }
      res.end();
    });
    for await (const e of streamChat({ conn: connection(s.url), api: 'chat', request: request() })) {
      if (e.type === 'text') break;
    }
    // Wait for the event itself (a fixed budget of polls is a race on a loaded machine). Were the
    // request not aborted, the close would still come, after the server's own end(): tell them apart.
    await serverSawClose;
    expect(closed).toBe(true);
    expect(endedByServer).toBe(false);
  });

  it('aborting the signal mid-stream ends it with an abort error', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chatChunk({ content: 'a' })}\n\n`);
    });
    const controller = new AbortController();
    const gen = streamChat({ conn: connection(s.url), api: 'chat', request: request(), signal: controller.signal });
    let first = await gen.next();
    while (!first.done && first.value.type !== 'text') first = await gen.next();
    expect(first.value).toMatchObject({ type: 'text', delta: 'a' });
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    expect(isAbortError(await failure(gen.next()))).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('invalid UTF-8 inside a stream', () => {
  it('bytes that are not UTF-8 become U+FFFD in the text; the rest of the answer is intact', async () => {
    const [before, after] = [`data: {"choices":[{"index":0,"delta":{"content":"ab`, `cd"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`];
    const s = await server(async (_q, res) => writeSse(res, [Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]));
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(textOf(events)).toBe('ab\uFFFD\uFFFDcd');
    expect(outcome.termination).toBe('end_marker');
  });
});

describe('streamChat over Messages SSE', () => {
  it('decodes an Anthropic stream with ping events and x-api-key auth', async () => {
    const ev = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const body = [
      ev('message_start', { message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 5, output_tokens: 1 } } }),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ev('ping', {}),
      ': comment\n\n',
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Bon' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'jour' } }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } }),
      ev('message_stop', {}),
    ].join('');
    const pieces = body.match(/[\s\S]{1,17}/g)!;
    const s = await server(async (_q, res) => writeSse(res, pieces, { 'request-id': 'req_9' }));
    const { events, outcome } = await collect({ conn: connection(s.url, { auth: 'x-api-key' }), api: 'messages', request: request() });
    expect(textOf(events)).toBe('Bonjour');
    expect(events).toContainEqual(expect.objectContaining({ type: 'finish', reason: 'stop' }));
    expect(outcome).toEqual({ termination: 'end_marker', maxTokensField: 'max_tokens', maxTokens: 100, learned: {}, requestId: 'req_9' });
    expect(s.requests[0].url).toBe('/v1/messages');
    expect(s.requests[0].headers['x-api-key']).toBe('sk-test-secret-1234');
  });
});

describe('content-type robustness and non-stream answers', () => {
  const completion = { id: 'c', model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'whole answer' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 2 } };

  it('non-stream request: JSON parsed into events, end_marker', async () => {
    const s = await server((_q, res) => json(res, 200, completion));
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request({ stream: false }) });
    expect(textOf(events)).toBe('whole answer');
    expect(outcome.termination).toBe('end_marker');
    expect(JSON.parse(s.requests[0].body).stream).not.toBe(true);
  });

  it('stream requested but JSON came back: parsed as a whole response', async () => {
    const s = await server((_q, res) => json(res, 200, completion));
    const { events } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(textOf(events)).toBe('whole answer');
  });

  it('non-stream requested but SSE came back: decoded as a stream', async () => {
    const s = await server(async (_q, res) => writeSse(res, [`data: ${chatChunk({ content: 'sse' }, 'stop')}\n\ndata: [DONE]\n\n`]));
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request({ stream: false }) });
    expect(textOf(events)).toBe('sse');
    expect(outcome.termination).toBe('end_marker');
  });

  it('200 with an HTML page: exit 6, summarised', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Sign in to Corp Proxy</title></head><body>…</body></html>');
    });
    const error = await failure(collect({ conn: connection(s.url), api: 'chat', request: request() }));
    expect(error).toBeInstanceOf(HttpError);
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe('gateway error: HTTP 200 with an HTML page instead of an answer: HTML error page: Sign in to Corp Proxy');
  });

  it('a JSON body cut off part-way: exit 8 (like a stream without its end marker), said so, not dumped', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [');
    });
    const error = await failure(collect({ conn: connection(s.url), api: 'chat', request: request({ stream: false }) }));
    expect(error.exitCode).toBe(8);
    expect(error.message).toBe("the gateway's JSON answer was cut off after 13 bytes");
  });

  it('a body that is not JSON at all: exit 6 with a short summary', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('upstream said no');
    });
    const logged: string[] = [];
    const error = await failure(collect({ conn: connection(s.url), api: 'chat', request: request({ stream: false }), log: (line) => logged.push(line) }));
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe('the gateway answered with invalid JSON: upstream said no');
    // -v shows what the line summarises.
    expect(logged).toContain('< body: upstream said no');
  });

  it('-v logs the whole body of a 200 that carries an error or an HTML page', async () => {
    const errorBody = JSON.stringify({ id: 'x', object: 'chat.completion', choices: [], error: { code: 502, message: 'upstream failed', metadata: { raw: 'detail '.repeat(100) } } });
    const s = await server((q, res) => {
      const html = q.url?.includes('html');
      res.writeHead(200, { 'content-type': html ? 'text/html' : 'application/json' });
      res.end(html ? '<html><title>Blocked</title><body>policy 42</body></html>' : errorBody);
    });
    const logged: string[] = [];
    const log = (line: string) => logged.push(line);
    await collect({ conn: connection(s.url), api: 'chat', request: request({ stream: false }), log }).catch(() => undefined);
    expect(logged).toContain(`< body: ${errorBody}`);
    await failure(collect({ conn: connection(`${s.url}/html`), api: 'chat', request: request({ stream: false }), log }));
    expect(logged).toContain('< body: <html><title>Blocked</title><body>policy 42</body></html>');
  });
});

describe('max-tokens-field switch', () => {
  it('a 400 naming max_completion_tokens: warn, re-send once with it', async () => {
    const s = await server((_q, res, _r, i) =>
      i === 0
        ? json(res, 400, { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", param: 'max_tokens' } })
        : writeSse(res, [`data: ${chatChunk({ content: 'ok' }, 'stop')}\n\ndata: [DONE]\n\n`]),
    );
    const warnings: string[] = [];
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request(), warn: (l) => warnings.push(l) });
    expect(textOf(events)).toBe('ok');
    expect(s.requests).toHaveLength(2);
    const second = JSON.parse(s.requests[1].body);
    expect(second.max_completion_tokens).toBe(100);
    expect(second.max_tokens).toBeUndefined();
    expect(outcome.maxTokensField).toBe('max_completion_tokens');
    expect(outcome.learned).toEqual({ 'max-tokens-field': 'max_completion_tokens' });
    expect(warnings).toEqual(['warning: the gateway wants max_completion_tokens instead of max_tokens; retrying once with it']);
  });

  // What Portkey sends when it translates Chat Completions for an Anthropic provider.
  const required = { error: { message: 'anthropic error: max_tokens: Field required', type: 'invalid_request_error', param: null, code: null }, provider: 'anthropic' };

  it('a 400 saying max_tokens is required: warn, re-send once with max_tokens 4096, learned', async () => {
    const s = await server((_q, res, _r, i) =>
      i === 0 ? json(res, 400, required) : writeSse(res, [`data: ${chatChunk({ content: 'ok' }, 'stop')}\n\ndata: [DONE]\n\n`]),
    );
    const warnings: string[] = [];
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request({ maxTokens: undefined }), warn: (l) => warnings.push(l) });
    expect(textOf(events)).toBe('ok');
    expect(s.requests).toHaveLength(2);
    expect(JSON.parse(s.requests[0].body).max_tokens).toBeUndefined();
    expect(JSON.parse(s.requests[1].body).max_tokens).toBe(4096);
    expect(outcome).toMatchObject({ maxTokens: 4096, maxTokensField: 'max_tokens', learned: { 'max-tokens': 4096 } });
    expect(warnings).toEqual(['warning: the gateway requires max_tokens; retrying once with max_tokens 4096']);
  });

  it('max_tokens required: the configured limit is used when there is one; retried exactly once', async () => {
    const s = await server((_q, res) => json(res, 400, required));
    const error = await failure(collect({ conn: connection(s.url), api: 'chat', request: request({ maxTokens: 64, maxTokensField: 'max_completion_tokens' }) }));
    expect(s.requests).toHaveLength(2);
    expect(JSON.parse(s.requests[1].body)).toMatchObject({ max_tokens: 64 });
    expect(error.exitCode).toBe(4);
  });

  it('switches only once', async () => {
    const s = await server((_q, res, _r, i) =>
      json(res, 400, { error: { message: i === 0 ? 'use max_completion_tokens' : 'use max_tokens' } }),
    );
    const error = await failure(collect({ conn: connection(s.url), api: 'chat', request: request() }));
    expect(s.requests).toHaveLength(2);
    expect(error).toBeInstanceOf(HttpError);
    expect(error.exitCode).toBe(4);
  });

  it('other 400s are not retried', async () => {
    const s = await server((_q, res) => json(res, 400, { error: { message: 'messages: field required' } }));
    const error = await failure(collect({ conn: connection(s.url), api: 'chat', request: request() }));
    expect(s.requests).toHaveLength(1);
    expect(error.message).toBe('gateway rejected the request: HTTP 400: messages: field required');
  });
});

describe('after the end marker', () => {
  it('a gateway that keeps the stream open after [DONE]: the answer is complete at once, not after the idle timeout', async () => {
    let closed!: () => void;
    const clientGone = new Promise<void>((resolve) => (closed = resolve));
    const s = await server(async (_q, res) => {
      res.on('close', () => closed());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chatChunk({ content: 'done' }, 'stop')}\n\ndata: [DONE]\n\n`);
      // …and never ends the response.
    });
    const { events, outcome } = await collect({ conn: connection(s.url, { timeouts: { connectMs: 2_000, headersMs: 5_000, idleMs: 60_000 } }), api: 'chat', request: request() });
    expect(textOf(events)).toBe('done');
    expect(outcome.termination).toBe('end_marker');
    // The client closed the response it no longer needs.
    await clientGone;
  });

  it('bytes after [DONE] (a proxy footer) are not part of the answer, and the body is read to its end', async () => {
    const s = await server(async (_q, res) =>
      writeSse(res, [`data: ${chatChunk({ content: 'answer' }, 'stop')}\n\ndata: [DONE]\n\n`, `data: ${chatChunk({ content: ' footer' })}\n\n`]),
    );
    const { events, outcome } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    expect(textOf(events)).toBe('answer');
    expect(outcome.termination).toBe('end_marker');
  });
});

describe('onEvent: events taken as they are decoded (a batch line folds them, nothing is yielded)', () => {
  async function sunk(opts: StreamChatOptions): Promise<{ events: ChatEvent[]; yielded: number; outcome: StreamOutcome }> {
    const events: ChatEvent[] = [];
    const gen = streamChat({ ...opts, onEvent: (event) => events.push(event) });
    let yielded = 0;
    for (;;) {
      const step = await gen.next();
      if (step.done) return { events, yielded, outcome: step.value };
      yielded++;
    }
  }

  it('an SSE answer: every event, in order, with the same text, finish and usage as when yielded', async () => {
    const usage = JSON.stringify({ id: 'c1', model: 'm1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const body = [`data: ${chatChunk({ content: 'Hel' })}\n\ndata: ${chatChunk({ content: 'lo' })}\n\n`, `data: ${chatChunk({}, 'stop')}\n\ndata: ${usage}\n\ndata: [DONE]\n\n`];
    const s = await server(async (_q, res) => writeSse(res, body, { 'x-litellm-response-cost': '0.5' }));
    const { events, yielded, outcome } = await sunk({ conn: connection(s.url), api: 'chat', request: request() });
    expect(yielded).toBe(0);
    expect(outcome.termination).toBe('end_marker');
    expect(textOf(events)).toBe('Hello');
    expect(events[0]).toEqual({ type: 'usage', input_tokens: null, output_tokens: null, cost: 0.5 });
    expect(events.map((e) => e.type)).toEqual(['usage', 'model', 'text', 'text', 'finish', 'usage']);
    const { events: yieldedEvents } = await collect({ conn: connection(s.url), api: 'chat', request: request() });
    const merged = (list: ChatEvent[]) => list.filter((e) => e.type !== 'text');
    expect(merged(events)).toEqual(merged(yieldedEvents));
  });

  it('a whole JSON answer and an error event inside the stream go to onEvent too', async () => {
    const completion = { id: 'c', model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'whole answer' }, finish_reason: 'stop' }] };
    const whole = await server((_q, res) => json(res, 200, completion));
    const a = await sunk({ conn: connection(whole.url), api: 'chat', request: request({ stream: false }) });
    expect([a.yielded, textOf(a.events), a.outcome.termination]).toEqual([0, 'whole answer', 'end_marker']);
    const failing = await server(async (_q, res) => writeSse(res, [`data: ${chatChunk({ content: 'pa' })}\n\n`, 'event: error\ndata: {"error":{"message":"boom"}}\n\n']));
    const b = await sunk({ conn: connection(failing.url), api: 'chat', request: request() });
    expect(b.yielded).toBe(0);
    expect(b.outcome.termination).toBe('error');
    expect(b.events.find((e) => e.type === 'error')).toMatchObject({ type: 'error', message: 'boom' });
  });
});

describe('onEvent and the caller\'s signal', () => {
  it.each([
    ['without --max-time', undefined],
    ['with --max-time', 30_000],
  ])('%s: aborting it mid-stream ends the request with an abort error, and the gateway sees the connection go', async (_name, maxTimeMs) => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const s = await server((_q, res) => {
      res.on('close', () => closed());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chatChunk({ content: 'a' })}\n\n`);
    });
    const controller = new AbortController();
    const events: ChatEvent[] = [];
    const gen = streamChat({ conn: connection(s.url, { maxTimeMs }), api: 'chat', request: request(), signal: controller.signal, onEvent: (e) => events.push(e) });
    const ended = failure(gen.next());
    while (!events.some((e) => e.type === 'text')) await sleep(5);
    controller.abort();
    expect(isAbortError(await ended)).toBe(true);
    await gone;
  });
});

describe('onEvent with fallbacks', () => {
  it('a model failing before its answer hands the request on; the events of the one that answered go to onEvent', async () => {
    const s = await server(async (_q, res, recorded) => {
      const { model } = JSON.parse(recorded.body) as { model: string };
      if (model === 'down') return json(res, 503, { error: { message: 'down' } });
      return writeSse(res, [`data: ${chatChunk({ content: 'ok' }, 'stop')}\n\ndata: [DONE]\n\n`]);
    });
    const events: ChatEvent[] = [];
    const gen = streamChatWithFallback({ conn: connection(s.url, { retries: 0 }), api: 'chat', request: request({ model: 'down' }), onEvent: (e) => events.push(e) }, ['good']);
    let step = await gen.next();
    while (!step.done) step = await gen.next();
    expect([textOf(events), step.value.model, step.value.fallbackFrom]).toEqual(['ok', 'good', 'down']);
  });
});
