// SPEC §8 "Terminal safety": gateway text drawn on a terminal cannot act on it; pipes keep the bytes.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runInPty, visible } from '../helpers/pty.js';
import { useGatewayAndTerminals } from '../helpers/tmux.js';
import { useLoopbackServers } from '../transport/loopback.js';
import { join } from 'node:path';

const ESC = '\u001B';
const BEL = '\u0007';
// `echo` repeats the prompt: an answer that would retitle the window, write the clipboard and clear the screen.
const HOSTILE = `title${ESC}]2;PWNED${BEL} clip${ESC}]52;c;aGVsbG8=${BEL} wipe${ESC}[2J${ESC}[3J end`;

const ctx = useGatewayAndTerminals();
const loopback = useLoopbackServers();

describe('terminal safety', () => {
  it('one-shot on a terminal: the answer cannot retitle the window, write the clipboard or clear the screen', async () => {
    const { code, raw } = await runInPty(['--base-url', ctx.base, '-m', 'echo', HOSTILE], { env: ctx.user.env() });
    expect(code, visible(raw)).toBe(0);
    expect(raw).toContain('title clip wipe end');
    expect(raw, visible(raw)).not.toContain(`${ESC}]`);
    expect(raw).not.toContain('PWNED');
    expect(raw).not.toContain('aGVsbG8=');
    expect(raw, visible(raw)).not.toContain(`${ESC}[3J`);
    expect(raw, visible(raw)).not.toContain(`${ESC}[2J`);
  });

  it('piped stdout keeps the answer byte for byte, escape codes included', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', HOSTILE], { env: ctx.user.env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${HOSTILE}\n`);
  });

  it('history show and list on a terminal draw saved text without its escape codes; piped they keep it', async () => {
    const sent = await runCli(['--base-url', ctx.base, '-m', 'echo', HOSTILE], { env: ctx.user.env() });
    expect(sent.code).toBe(0);
    const list = await runCli(['history', 'list', '--json'], { env: ctx.user.env() });
    const cid = (JSON.parse(list.stdout) as Array<{ cid: string }>)[0]!.cid;

    for (const args of [['history', 'show', cid], ['history', 'list']]) {
      const { code, raw } = await runInPty(args, { env: ctx.user.env() });
      expect(code, visible(raw)).toBe(0);
      expect(raw).toContain('title clip wipe end');
      expect(raw, `${args.join(' ')}: ${visible(raw)}`).not.toContain(`${ESC}]`);
      expect(raw).not.toContain(`${ESC}[2J`);
    }
    const piped = await runCli(['history', 'show', cid], { env: ctx.user.env() });
    expect(piped.stdout).toContain(HOSTILE);
  });

  it('the models table and a gateway error on a terminal lose their escape codes', async () => {
    const server = await loopback((req, res) => {
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: `model${ESC}]2;PWNED${BEL}-a`, object: 'model', owned_by: `own${ESC}[2Jer` }] }));
      } else {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `bad${ESC}]52;c;PWNED${BEL} request`, type: 'invalid_request_error' } }));
      }
    });
    const models = await runInPty(['models', '--base-url', server.url], { env: ctx.user.env() });
    expect(models.code, visible(models.raw)).toBe(0);
    expect(models.raw).toContain('model-a');
    expect(models.raw).toContain('owner');
    expect(models.raw, visible(models.raw)).not.toContain(ESC);
    expect(models.raw).not.toContain('PWNED');

    const failed = await runInPty(['--base-url', server.url, '-m', 'x', '--no-save', 'hi'], { env: ctx.user.env() });
    expect(failed.code, visible(failed.raw)).toBe(4);
    expect(failed.raw).toContain('bad request');
    expect(failed.raw, visible(failed.raw)).not.toContain(`${ESC}]`);
    expect(failed.raw).not.toContain('PWNED');
  });

  it('chat: a hostile answer and prompt reach the terminal without their escape codes (raw bytes)', async () => {
    const session = ctx.launch(['chat', '--base-url', ctx.base, '-m', 'echo', '--no-save', HOSTILE]);
    const recorded = session.record(join(ctx.user.home, 'chat-raw.bin'));
    await session.waitFor((screen) => /out \d+ tokens/.test(screen), 'the answer');
    session.keys('C-d');
    await session.waitForExit();
    const raw = recorded();
    expect(raw).toContain('title clip wipe end');
    expect(raw, visible(raw)).not.toContain(`${ESC}]`);
    expect(raw).not.toContain('PWNED');
    expect(raw).not.toContain(`${ESC}[3J`);
  });

  it('a tool call taller than the window does not make the live view clear the screen', async () => {
    const args = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key_${i}`, `value ${i}`]));
    const server = await loopback(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }));
      res.write(chunk({}, 'tool_calls'));
      // The call is complete well before the stream ends: the live view shows it meanwhile.
      await new Promise((r) => setTimeout(r, 400));
      res.end('data: [DONE]\n\n');
    });
    const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'm', '--no-save', 'call it'], { env: ctx.user.env(), rows: 24 });
    expect(code, visible(raw)).toBe(0);
    expect(raw).toContain('value 39');
    expect(raw, visible(raw)).not.toContain(`${ESC}[3J`);
    expect(raw, visible(raw)).not.toContain(`${ESC}[2J`);
  });
});
