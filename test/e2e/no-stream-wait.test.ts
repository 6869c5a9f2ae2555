// SPEC §7: with --no-stream the response headers come only when the whole answer is generated, so
// the wait for them is the larger of --timeout and 600 s, and a time-out there is never retried (the
// gateway may still be generating, and billing, the first answer). Connect failures still are.
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();

describe('--no-stream waits for the whole answer and sends it once', () => {
  for (const api of ['chat', 'messages'] as const) {
    it(`${api}: an answer slower than --timeout still arrives, from one request`, async () => {
      // slow-300 with 5 tokens: the JSON comes after ~1.2 s, well past --timeout 0.5.
      const result = await runCli(
        ['--base-url', ctx.base, '-m', 'slow-300', '--max-tokens', '5', '--api', api, '--no-stream', '--timeout', '0.5', '--retries', '2', '--no-save', 'hi'],
        { env: ctx.user.env(), timeoutMs: 30_000 },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split(/\s+/)).toHaveLength(5);
      expect(ctx.gateway.requests.filter((r) => r.path.startsWith('/v1/'))).toHaveLength(1);
    });
  }

  it('a refused connection is still retried with --no-stream (nothing was sent)', async () => {
    // A port that was just free: nobody listens there.
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const result = await runCli(['--base-url', `http://127.0.0.1:${port}/v1`, '-m', 'echo', '--no-stream', '--retries', '2', '--no-save', 'hi'], {
      env: ctx.user.env(),
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(7);
    const retries = result.stderr.split('\n').filter((line) => /connection refused; retry \d of 2/.test(line));
    expect(retries).toHaveLength(2);
  });
});
