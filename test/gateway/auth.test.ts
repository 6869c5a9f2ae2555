// A gateway started with an API key: both auth schemes, each interface's 401, and no key in logs.
import { describe, expect, it } from 'vitest';
import { bodyFor, logRecorder, post, useGateway } from './support.js';

const KEY = 'sk-dev-secret-key-0042';
const gatewayLog = logRecorder();
const gateway = useGateway({ apiKey: KEY, log: gatewayLog.log });

describe('auth', () => {
  it('accepts Authorization: Bearer and x-api-key', async () => {
    expect((await post(gateway(), 'chat', bodyFor('chat', 'echo'), { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect((await post(gateway(), 'messages', bodyFor('messages', 'echo'), { headers: { 'x-api-key': KEY } })).status).toBe(200);
    expect((await fetch(`${gateway().url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });

  it('Chat Completions: 401 in the OpenAI envelope', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { 'x-api-key': 'wrong' }] as Record<string, string>[]) {
      const res = await post(gateway(), 'chat', bodyFor('chat', 'echo'), { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: { message: expect.stringContaining('API key'), type: 'authentication_error', param: null, code: 'invalid_api_key' },
      });
    }
  });

  it('Messages: 401 in the Anthropic envelope', async () => {
    const res = await post(gateway(), 'messages', bodyFor('messages', 'echo'), { headers: { 'x-api-key': 'nope' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('API key') } });
  });

  it('GET /v1/models needs the key too', async () => {
    expect((await fetch(`${gateway().url}/v1/models`)).status).toBe(401);
  });

  it('never shows the key: not in log lines, [redacted] in the request log endpoint', async () => {
    gatewayLog.clear();
    await (await post(gateway(), 'chat', bodyFor('chat', 'echo'), { headers: { authorization: `Bearer ${KEY}` } })).text();
    await (await post(gateway(), 'messages', bodyFor('messages', 'echo'), { headers: { 'x-api-key': KEY } })).text();
    const served = await (await fetch(`${gateway().url}/__gatechat/requests`, { headers: { 'x-api-key': KEY } })).text();
    expect(served).not.toContain(KEY);
    expect(served).toContain('"Bearer [redacted]"');
    // Exactly this test's two requests were logged (and read): the check below is about them.
    const lines = await gatewayLog.waitFor(2);
    expect(lines).toEqual([expect.stringMatching(/^POST \/v1\/chat\/completions echo 200 /), expect.stringMatching(/^POST \/v1\/messages echo 200 /)]);
    expect(lines.join('\n')).not.toContain(KEY);
    // in-process, tests still see exactly what the client sent
    expect(gateway().requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });
});
