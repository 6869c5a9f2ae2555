// The dev gateway's load tools for batch: the in-flight count (GET /__gatechat/stats, in_flight in
// the request log) and busy-K, which refuses with 429 while more than K requests are in flight.
import { describe, expect, it } from 'vitest';
import { type Api, asAny, bodyFor, post, useGateway } from './support.js';

const gateway = useGateway();

async function stats() {
  return (await (await fetch(`${gateway().url}/__gatechat/stats`)).json()) as { in_flight: number; peak_in_flight: number; requests: number };
}

/** Requests that stay in flight (slow streams) until released; resolves once the gateway counts them. */
async function holdInFlight(api: Api, n: number) {
  const controller = new AbortController();
  const responses = await Promise.all(
    Array.from({ length: n }, () => post(gateway(), api, bodyFor(api, 'slow-200', 'x', { stream: true, max_tokens: 50 }), { signal: controller.signal })),
  );
  expect(responses.every((r) => r.status === 200)).toBe(true);
  return {
    async release() {
      controller.abort();
      await Promise.all(responses.map((r) => r.body?.cancel().catch(() => undefined)));
      // The gateway sees the closes a moment later: wait for its own count, not a fixed time.
      while ((await stats()).in_flight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}

describe.each<Api>(['chat', 'messages'])('%s: busy-K', (api) => {
  it('more than K in flight (this one included): 429 with retry-after-ms; K or fewer: the echo', async () => {
    const held = await holdInFlight(api, 3);
    try {
      expect((await stats()).in_flight).toBe(3);
      const refused = await post(gateway(), api, bodyFor(api, 'busy-3', 'refused'));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after-ms')).toBe('200');
      expect(JSON.stringify(await refused.json())).toContain('more than 3 requests in flight');
      const accepted = await post(gateway(), api, bodyFor(api, 'busy-4', 'accepted'));
      expect(accepted.status).toBe(200);
      expect(JSON.stringify(await accepted.json())).toContain('accepted');
      expect(gateway().requests.map((r) => r.in_flight).slice(3)).toEqual([4, 4]);
      expect((await stats()).peak_in_flight).toBe(4);
    } finally {
      await held.release();
    }
  });

  it('one at a time, busy-1 always answers', async () => {
    for (let i = 0; i < 3; i++) expect((await post(gateway(), api, bodyFor(api, 'busy-1'))).status).toBe(200);
    expect((await stats()).peak_in_flight).toBe(1);
  });
});

it('DELETE /__gatechat/requests resets the peak; stats accepts only GET', async () => {
  await Promise.all([post(gateway(), 'chat', bodyFor('chat', 'echo')), post(gateway(), 'chat', bodyFor('chat', 'busy-9'))]);
  expect((await stats()).peak_in_flight).toBeGreaterThanOrEqual(1);
  await fetch(`${gateway().url}/__gatechat/requests`, { method: 'DELETE' });
  expect(await stats()).toEqual({ in_flight: 0, peak_in_flight: 0, requests: 0, connections: expect.any(Number) });
  expect((await fetch(`${gateway().url}/__gatechat/stats`, { method: 'POST' })).status).toBe(405);
});
