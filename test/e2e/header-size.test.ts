// Response headers larger than Node's limit (16 KiB unless --max-http-header-size says otherwise).
// The build gives undici a node:http stand-in that answers maxHeaderSize without loading node:http
// (scripts/build-plugins.mjs): these runs show it keeps Node's limit and honours the option.
import { describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';
import { useLoopbackServers } from '../transport/loopback.js';

const loopback = useLoopbackServers();

/** A Chat Completions answer behind 20 KB of response headers. */
const oversized = () =>
  loopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-padding': 'p'.repeat(20_000) });
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));
  });

describe('response headers over the size limit', () => {
  it('are one clear line (exit 7), asked once: a larger answer will not come from asking again', async () => {
    const server = await oversized();
    const user = makeUserDirs();
    try {
      const run = await runCli(['--base-url', server.url, '-m', 'm', '--no-save', '--no-stream', 'hi'], { env: user.env() });
      expect(run.code).toBe(7);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/response headers .* larger than/);
      expect(run.stderr).toContain('--max-http-header-size');
      expect(server.requests).toHaveLength(1);
    } finally {
      user.cleanup();
    }
  });

  it('are read whole when NODE_OPTIONS raises the limit', async () => {
    const server = await oversized();
    const user = makeUserDirs();
    try {
      const run = await runCli(['--base-url', server.url, '-m', 'm', '--no-save', '--no-stream', 'hi'], {
        env: { ...user.env(), NODE_OPTIONS: '--max-http-header-size=65536' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('ok\n');
    } finally {
      user.cleanup();
    }
  });
});
