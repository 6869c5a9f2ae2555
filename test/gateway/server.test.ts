// Routing, validation, auth, the request log and gzip of the dev gateway.
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LISTED_MODELS, parseModel } from '../../src/gateway/models.js';
import { type Api, bodyFor, chatText, messagesText, payloads, post, readAll, useGateway, asAny, logRecorder } from './support.js';

const gatewayLog = logRecorder();
const gateway = useGateway({ log: gatewayLog.log });

describe('routes and validation', () => {
  it('GET /v1/models lists the model families in the OpenAI list shape', async () => {
    const res = await fetch(`${gateway().url}/v1/models`);
    expect(res.status).toBe(200);
    const json = await res.json().then(asAny);
    expect(json.object).toBe('list');
    expect(json.data).toContainEqual({ id: 'echo', object: 'model', created: expect.any(Number), owned_by: 'gatechat-dev', pricing: { prompt: '0.000003', completion: '0.000015', input_cache_read: '0.0000003', input_cache_write: '0.00000375' } });
    expect(json.data.map((m: any) => m.id)).toEqual(expect.arrayContaining(['lorem-200', 'slow-80', 'think', 'tool', 'fail-429', 'drop-after-5', 'no-done']));
  });

  it('every listed model is one the gateway answers', () => {
    for (const id of LISTED_MODELS) expect(parseModel(id), id).not.toBeNull();
  });

  it('unknown path: 404 JSON error; wrong method: 405', async () => {
    const res = await fetch(`${gateway().url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect((await res.json().then(asAny)).error.message).toContain('/v1/embeddings');
    expect((await fetch(`${gateway().url}/v1/chat/completions`)).status).toBe(405);
  });

  it.each<[Api]>([['chat'], ['messages']])('%s: invalid JSON is a 400 in the interface envelope', async (api) => {
    const res = await post(gateway(), api, '{"model": "echo",');
    expect(res.status).toBe(400);
    const json = await res.json().then(asAny);
    if (api === 'chat') expect(json.error).toMatchObject({ type: 'invalid_request_error', param: null });
    else expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it.each<[Api]>([['chat'], ['messages']])('%s: missing model is a 400', async (api) => {
    const res = await post(gateway(), api, { messages: [{ role: 'user', content: 'x' }], max_tokens: 5 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json().then(asAny))).toContain('model');
  });

  it('Messages requires max_tokens; Chat Completions does not', async () => {
    const res = await post(gateway(), 'messages', { model: 'echo', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(400);
    expect(await res.json().then(asAny)).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
    expect((await post(gateway(), 'chat', { model: 'echo', messages: [{ role: 'user', content: 'x' }] })).status).toBe(200);
  });

  it('a non-positive max_tokens is a 400', async () => {
    expect((await post(gateway(), 'chat', bodyFor('chat', 'echo', 'x', { max_tokens: 0 }))).status).toBe(400);
  });
});

describe('request log', () => {
  it('records method, path, headers, body and model; the HTTP endpoint serves it; DELETE resets', async () => {
    await post(gateway(), 'chat', bodyFor('chat', 'echo', 'logged'), { headers: { 'x-trace': 'abc' } });
    await post(gateway(), 'messages', '{broken');
    const requests = gateway().requests;
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', model: 'echo', body: { model: 'echo' } });
    expect(requests[0].headers['x-trace']).toBe('abc');
    expect(requests[1]).toMatchObject({ path: '/v1/messages', model: null, body: '{broken' });
    const served = await (await fetch(`${gateway().url}/__gatechat/requests`)).json().then(asAny);
    expect(served.map((r: any) => r.model)).toEqual(['echo', null]);
    const reset = await fetch(`${gateway().url}/__gatechat/requests`, { method: 'DELETE' });
    expect(await reset.json().then(asAny)).toEqual({ deleted: 2 });
    expect(gateway().requests).toHaveLength(0);
  });

  it('logs one line per request: method, path, model, status, ms', async () => {
    gatewayLog.clear();
    await (await post(gateway(), 'chat', bodyFor('chat', 'fail-403'))).text();
    // The line is written when the response has ended, which may be after the client read it.
    const lines = await gatewayLog.waitFor(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^POST \/v1\/chat\/completions fail-403 403 \d+ms$/);
  });
});

function rawPost(url: string, body: unknown, headers: Record<string, string>): Promise<{ headers: Record<string, unknown>; chunks: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, chunks }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('writes', () => {
  // Tokens written in one event-loop turn share a write (lorem-N is as fast as the client reads), but a
  // paced model's tokens each leave when they are due: a client must see them arrive one by one.
  it('a paced answer leaves token by token on a plain stream', async () => {
    const body = bodyFor('chat', 'slow-20', 'x', { stream: true, max_tokens: 4 });
    const { headers, chunks } = await rawPost(`${gateway().url}/v1/chat/completions`, body, {});
    expect(headers['content-encoding']).toBeUndefined();
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(chatText(payloads(Buffer.concat(chunks).toString('utf8')))).toBe('Lorem ipsum dolor sit');
  });
});

describe('gzip (model name ending +gzip, client accepting gzip)', () => {
  it('streams compressed, flushed per token, and decodes to the normal stream', async () => {
    const body = bodyFor('chat', 'slow-20+gzip', 'x', { stream: true, max_tokens: 4 });
    const { headers, chunks } = await rawPost(`${gateway().url}/v1/chat/completions`, body, { 'accept-encoding': 'gzip' });
    expect(headers['content-encoding']).toBe('gzip');
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    const text = gunzipSync(Buffer.concat(chunks)).toString('utf8');
    expect(chatText(payloads(text))).toBe('Lorem ipsum dolor sit');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('compresses JSON answers too, and fetch decodes them transparently', async () => {
    const body = bodyFor('messages', 'echo+gzip', 'squeeze me');
    const { headers, chunks } = await rawPost(`${gateway().url}/v1/messages`, body, { 'accept-encoding': 'gzip, deflate' });
    expect(headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8')).content[0].text).toBe('squeeze me');
    const viaFetch = await post(gateway(), 'messages', { ...body, stream: true });
    expect(messagesText(payloads(await viaFetch.text()))).toBe('squeeze me');
  });

  it('fast answers and faults work compressed too', async () => {
    const { chunks } = await rawPost(`${gateway().url}/v1/messages`, bodyFor('messages', 'lorem-3000+gzip', 'x', { stream: true, max_tokens: 5000 }), { 'accept-encoding': 'gzip' });
    expect(messagesText(payloads(gunzipSync(Buffer.concat(chunks)).toString('utf8'))).split(' ')).toHaveLength(3000);
    const dropped = await post(gateway(), 'chat', bodyFor('chat', 'drop-after-3+gzip', 'x', { stream: true }));
    expect(dropped.headers.get('content-encoding')).toBe('gzip');
    const { text, error } = await readAll(dropped);
    expect(error).not.toBeNull();
    expect(chatText(payloads(text))).toBe('Lorem ipsum dolor');
  });

  it('no gzip without Accept-Encoding, nor for names without +gzip', async () => {
    const plain = await rawPost(`${gateway().url}/v1/chat/completions`, bodyFor('chat', 'echo+gzip', 'x'), {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(Buffer.concat(plain.chunks).toString()).model).toBe('echo+gzip');
    const named = await rawPost(`${gateway().url}/v1/chat/completions`, bodyFor('chat', 'echo', 'x'), { 'accept-encoding': 'gzip' });
    expect(named.headers['content-encoding']).toBeUndefined();
  });
});

describe('tool calls in the history', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
  const chatHistory = (...after: unknown[]) => [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [call] }, ...after];
  const use = { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} };
  const messagesHistory = (...after: unknown[]) => [{ role: 'user', content: 'q' }, { role: 'assistant', content: [use] }, ...after];

  it('must each be answered right after, as the vendors require (400 with their wording)', async () => {
    const refused = async (api: Api, messages: unknown[]) => {
      const res = await post(gateway(), api, bodyFor(api, 'echo', 'x', { messages }));
      expect(res.status, JSON.stringify(messages)).toBe(400);
      return (await res.json().then(asAny)).error.message as string;
    };
    expect(await refused('chat', chatHistory({ role: 'user', content: 'merged' }))).toContain('did not have response messages: call_1');
    expect(await refused('chat', chatHistory())).toContain('call_1');
    expect(await refused('chat', [{ role: 'user', content: 'q' }, { role: 'tool', tool_call_id: 'x', content: 'r' }])).toContain("role 'tool' must be a response");
    expect(await refused('messages', messagesHistory({ role: 'user', content: 'merged' }))).toContain('`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1');
  });

  it('an empty tool call id is refused, as the vendors do, even when the result names it too', async () => {
    const refused = async (api: Api, messages: unknown[]) => {
      const res = await post(gateway(), api, bodyFor(api, 'echo', 'x', { messages }));
      expect(res.status, JSON.stringify(messages)).toBe(400);
      return (await res.json().then(asAny)).error as { message: string; param: string };
    };
    const unnamed = { ...call, id: '' };
    const chat = await refused('chat', [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [unnamed] }, { role: 'tool', tool_call_id: '', content: 'r' }]);
    expect(chat).toMatchObject({ message: "Invalid 'messages[1].tool_calls[0].id': empty string. Expected a string with minimum length 1, but got an empty string instead.", param: 'messages[1].tool_calls[0].id' });
    const result = await refused('chat', chatHistory({ role: 'tool', tool_call_id: '', content: 'r' }));
    expect(result.message).toContain("Invalid 'messages[2].tool_call_id': empty string.");
    const answered = { role: 'user', content: [{ type: 'tool_result', tool_use_id: '', content: 'r' }] };
    const messages = await refused('messages', [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ ...use, id: '' }] }, answered]);
    expect(messages.message).toBe("messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'");
    const resultId = await refused('messages', messagesHistory({ role: 'user', content: [{ type: 'tool_result', tool_use_id: '', content: 'r' }] }));
    expect(resultId.message).toBe("messages.2.content.0.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'");
  });

  it('answered calls are accepted', async () => {
    const chat = await post(gateway(), 'chat', bodyFor('chat', 'echo', 'x', { messages: chatHistory({ role: 'tool', tool_call_id: 'call_1', content: 'r' }) }));
    expect(chat.status).toBe(200);
    await chat.text();
    const answered = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'r' }] };
    const messages = await post(gateway(), 'messages', bodyFor('messages', 'echo', 'x', { messages: messagesHistory(answered) }));
    expect(messages.status).toBe(200);
    await messages.text();
  });
});
