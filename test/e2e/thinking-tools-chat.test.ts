// A thinking model behind a Chat Completions gateway (DeepSeek's reasoner and the gateways that pass it
// through): the tool-calling answer carries `reasoning_content`, and a follow-up whose assistant message
// with `tool_calls` lost it is refused with a 400 in the vendor's words (issue 16, Done when). The dev
// gateway plays this part on Messages only (SPEC §15); here a small loopback gateway plays it on Chat
// Completions, and the built binary must finish the loop, streamed and not. The same gateway sends two
// calls in one answer to show they run at once and their results go back in call order (SPEC §15).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';

const THOUGHT = 'The user wants the weather: call the tool.';
type Message = { role: string; content?: unknown; tool_calls?: unknown[]; reasoning_content?: string; tool_call_id?: string };
const bodies: Array<{ messages: Message[]; stream?: boolean }> = [];

function refuse(res: ServerResponse, index: number): void {
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `Missing \`reasoning_content\` field in the assistant message at message index ${index}`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } }));
}

/** The first request gets reasoning and a tool call; the follow-up gets the result echoed back. */
function answer(req: IncomingMessage, res: ServerResponse, raw: string): void {
  const body = JSON.parse(raw) as { messages: Message[]; stream?: boolean };
  bodies.push(body);
  const lost = body.messages.findIndex((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && typeof m.reasoning_content !== 'string');
  if (lost >= 0) return refuse(res, lost);
  const results = body.messages.filter((m) => m.role === 'tool');
  const both = JSON.stringify(body.messages[0]?.content).includes('both');
  const calls = both
    ? [
        { id: 'call_slow', type: 'function', function: { name: 'slow', arguments: '{}' } },
        { id: 'call_fast', type: 'function', function: { name: 'fast', arguments: '{}' } },
      ]
    : [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }];
  const message =
    results.length > 0
      ? { role: 'assistant', content: `done: ${results.map((r) => String(r.content)).join(', ')}`, reasoning_content: 'Report it.' }
      : { role: 'assistant', content: '', reasoning_content: THOUGHT, tool_calls: calls };
  const finish = results.length > 0 ? 'stop' : 'tool_calls';
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'r1', object: 'chat.completion', model: 'deepseek-reasoner', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    `data: ${JSON.stringify({ id: 'r1', object: 'chat.completion.chunk', model: 'deepseek-reasoner', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  res.write(chunk({ role: 'assistant', reasoning_content: message.reasoning_content }));
  if (message.tool_calls) res.write(chunk({ tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) }));
  else res.write(chunk({ content: message.content }));
  res.write(chunk({}, finish));
  res.end('data: [DONE]\n\n');
}

const server = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (d: string) => (raw += d)).on('end', () => answer(req, res, raw));
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const user = makeUserDirs();
afterEach(() => {
  bodies.length = 0;
});
afterAll(() => user.cleanup());

describe('a thinking model with tools behind a Chat Completions gateway', () => {
  for (const stream of ['--stream', '--no-stream']) {
    it(`${stream}: the reasoning of the tool-calling turn goes back with it, so the loop completes`, async () => {
      const tools = join(user.home, 'tools.json');
      writeFileSync(tools, JSON.stringify([{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } }, 'x-command': "cat > /dev/null; printf 'sunny'" }]));
      const run = await runCli(['--base-url', base, '-m', 'deepseek-reasoner', '--api', 'chat', stream, '--no-save', '--tools', tools, '--allow', 'weather', 'weather in Oslo?'], { env: user.env() });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('done: sunny\n');
      expect(bodies).toHaveLength(2);
      const followUp = bodies[1]!.messages;
      const assistant = followUp.find((m) => m.role === 'assistant')!;
      expect(assistant.reasoning_content).toBe(THOUGHT);
      expect(assistant.tool_calls).toHaveLength(1);
      expect(followUp.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: 'sunny' });
    });
  }
});

describe('calls of one answer', () => {
  it('run at the same time, and their results go back in the order of the calls', async () => {
    const log = join(user.home, 'calls.log');
    // slow starts first and ends last: its result must still come first. Each tool logs when it starts and ends.
    const tool = (name: string, seconds: number) => ({
      type: 'function',
      function: { name, parameters: { type: 'object' } },
      'x-command': `cat > /dev/null; echo "start ${name}" >> ${log}; sleep ${seconds}; echo "end ${name}" >> ${log}; printf '${name} result'`,
    });
    const tools = join(user.home, 'two-tools.json');
    writeFileSync(tools, JSON.stringify([tool('slow', 1.5), tool('fast', 0.1)]));
    const run = await runCli(['--base-url', base, '-m', 'deepseek-reasoner', '--api', 'chat', '--no-save', '--tools', tools, '--allow', '*', 'run both'], { env: user.env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('done: slow result, fast result\n');
    // Concurrent: fast started and ended while slow was running.
    const order = readFileSync(log, 'utf8').trim().split('\n');
    expect([...order].sort()).toEqual(['end fast', 'end slow', 'start fast', 'start slow']);
    expect(order.indexOf('end fast')).toBeLessThan(order.indexOf('end slow'));
    expect(order.indexOf('start fast')).toBeLessThan(order.indexOf('end slow'));
    const followUp = bodies[1]!.messages.filter((m) => m.role === 'tool');
    expect(followUp.map((m) => [m.tool_call_id, m.content])).toEqual([
      ['call_slow', 'slow result'],
      ['call_fast', 'fast result'],
    ]);
  });
});
