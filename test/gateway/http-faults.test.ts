// Fault models that fail before any answer byte: status, headers and each interface's envelope.
import { describe, expect, it } from 'vitest';
import { type Api, bodyFor, post, useGateway, asAny } from './support.js';

const gateway = useGateway();
const apis: Api[] = ['chat', 'messages'];

describe.each(apis)('%s: failing models', (api) => {
  for (const stream of [false, true]) {
    it.each([
      [401, 'authentication_error', 'authentication_error'],
      [403, 'permission_error', 'permission_error'],
      [404, 'invalid_request_error', 'not_found_error'],
      [500, 'server_error', 'api_error'],
      [503, 'server_error', 'api_error'],
    ])(`fail-%i (stream ${stream}) answers that status in the interface's envelope`, async (status, chatType, messagesType) => {
      const res = await post(gateway(), api, bodyFor(api, `fail-${status}`, 'x', { stream }));
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json');
      const json = await res.json().then(asAny);
      if (api === 'chat') {
        expect(json).toEqual({ error: { message: expect.stringContaining(`fail-${status}`), type: chatType, param: null, code: expect.any(String) } });
      } else {
        expect(json).toEqual({ type: 'error', error: { type: messagesType, message: expect.stringContaining(`fail-${status}`) } });
      }
      expect(res.headers.get('retry-after')).toBeNull();
    });
  }

  it('fail-429 sends Retry-After: 1; fail-429-S sends S; fail-429-ms-M sends retry-after-ms', async () => {
    const plain = await post(gateway(), api, bodyFor(api, 'fail-429'));
    expect(plain.status).toBe(429);
    expect(plain.headers.get('retry-after')).toBe('1');
    const json = await plain.json().then(asAny);
    // Both vendors call it rate_limit_error; the envelopes around it differ.
    if (api === 'chat') {
      expect(json).toEqual({ error: { message: expect.stringContaining('fail-429'), type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } });
    } else {
      expect(json).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('fail-429') } });
    }
    const long = await post(gateway(), api, bodyFor(api, 'fail-429-120', 'x', { stream: true }));
    expect(long.status).toBe(429);
    expect(long.headers.get('retry-after')).toBe('120');
    await long.body?.cancel();
    const ms = await post(gateway(), api, bodyFor(api, 'fail-429-ms-250'));
    expect(ms.headers.get('retry-after-ms')).toBe('250');
    expect(ms.headers.get('retry-after')).toBeNull();
    await ms.body?.cancel();
  });

  it('fail-500-noretry sends x-should-retry: false', async () => {
    const res = await post(gateway(), api, bodyFor(api, 'fail-500-noretry'));
    expect(res.status).toBe(500);
    expect(res.headers.get('x-should-retry')).toBe('false');
    await res.body?.cancel();
    const retryable = await post(gateway(), api, bodyFor(api, 'fail-500'));
    expect(retryable.headers.get('x-should-retry')).toBeNull();
    await retryable.body?.cancel();
  });

  it('html-502 is an nginx HTML page', async () => {
    const res = await post(gateway(), api, bodyFor(api, 'html-502', 'x', { stream: true }));
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    const html = await res.text();
    expect(html).toContain('<title>502 Bad Gateway</title>');
    expect(html).toContain('<h1>502 Bad Gateway</h1>');
    expect(html).toContain('nginx');
  });

  it('flaky-K fails K times per exact model name with 503, then echoes; DELETE resets', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await post(gateway(), api, bodyFor(api, 'flaky-2', 'made it'));
      statuses.push(res.status);
      if (res.status === 200) expect(JSON.stringify(await res.json().then(asAny))).toContain('made it');
      else expect(JSON.stringify(await res.json().then(asAny))).toContain('flaky-2');
    }
    expect(statuses).toEqual([503, 503, 200, 200]);
    // another name has its own counter
    expect((await post(gateway(), api, bodyFor(api, 'flaky-1'))).status).toBe(503);
    await fetch(`${gateway().url}/__gatechat/requests`, { method: 'DELETE' });
    expect((await post(gateway(), api, bodyFor(api, 'flaky-2'))).status).toBe(503);
  });

  it('unknown model: 404 like a real gateway', async () => {
    const res = await post(gateway(), api, bodyFor(api, 'no-such-model'));
    expect(res.status).toBe(404);
    const json = await res.json().then(asAny);
    if (api === 'chat') expect(json.error).toEqual({ message: expect.stringContaining('no-such-model'), type: 'invalid_request_error', param: null, code: 'model_not_found' });
    else expect(json).toEqual({ type: 'error', error: { type: 'not_found_error', message: 'model: no-such-model' } });
  });
});

it('flaky counters are shared between the interfaces (one gateway, one upstream)', async () => {
  expect((await post(gateway(), 'chat', bodyFor('chat', 'flaky-1'))).status).toBe(503);
  expect((await post(gateway(), 'messages', bodyFor('messages', 'flaky-1'))).status).toBe(200);
});
