// SPEC §5.4: a stream is complete when its end marker arrives. A gateway (or a proxy in front of it)
// that keeps the connection open after [DONE] / message_stop must not keep gatechat waiting: the
// answer is complete, so it exits 0 at once, without waiting for EOF or the idle timeout.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';
import { useLoopbackServers } from '../transport/loopback.js';

const server = useLoopbackServers();

const chatFrames = [
  { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'held', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'held', choices: [{ index: 0, delta: { content: 'all here' }, finish_reason: null }] },
  { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'held', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';

const messagesFrames = [
  ['message_start', { type: 'message_start', message: { id: 'm1', type: 'message', role: 'assistant', model: 'held', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'all here' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }],
  ['message_stop', { type: 'message_stop' }],
].map(([event, data]) => `event: ${event as string}\ndata: ${JSON.stringify(data)}\n\n`).join('');

describe('a gateway that holds the connection open after the end marker', () => {
  for (const [api, frames] of [['chat', chatFrames], ['messages', messagesFrames]] as const) {
    it(`${api}: the complete answer exits 0 without waiting for the connection to close`, async () => {
      const held: ServerResponse[] = [];
      const s = await server((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // The end marker, then nothing: no EOF, no keep-alives, until the test ends.
        res.write(frames);
        held.push(res);
      });
      const user = makeUserDirs();
      try {
        // --timeout 60: were gatechat to wait for EOF or the idle limit, the 15 s kill below ends it first.
        const result = await runCli(['--base-url', s.url, '--api', api, '-m', 'held', '--timeout', '60', '--no-save', 'hi'], {
          env: user.env(),
          timeoutMs: 15_000,
        });
        expect(result.signal, 'gatechat waited for the held connection').toBeNull();
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toBe('all here\n');
        expect(result.stderr).toBe('');
        expect(held).toHaveLength(1);
      } finally {
        user.cleanup();
        for (const res of held) res.destroy();
      }
    });
  }
});
