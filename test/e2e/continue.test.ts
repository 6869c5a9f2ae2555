// Continuing a saved conversation (-c / --cid) through the built binary against the dev gateway:
// the exact messages and settings the gateway receives (SPEC §6).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';
import { useLoopbackServers } from '../transport/loopback.js';

const ctx = useGatewayAndUser();
const loopback = useLoopbackServers();

const lastRequest = () => ctx.gateway.requests.at(-1)!;
const lastBody = () => lastRequest().body as Record<string, any>;

function toolsFile(): string {
  const file = join(ctx.user.home, 'tools.json');
  const tools = [{ type: 'function', function: { name: 'get_weather', description: 'weather for a place', parameters: { type: 'object', properties: { input: { type: 'string' } } } } }];
  writeFileSync(file, JSON.stringify(tools));
  return file;
}

async function gatechat(args: string[], env: Record<string, string> = {}) {
  return runCli(['--base-url', ctx.base, ...args], { env: { ...ctx.user.env(), ...env } });
}

describe('a turn that failed before any answer text', () => {
  it('is never merged into the next message: the same prompt again is sent once', async () => {
    const failed = await gatechat(['-m', 'fail-500', '--retries', '0', 'what is 2+2']);
    expect(failed.code).not.toBe(0);
    const again = await gatechat(['-m', 'fail-500', '--retries', '0', '-c', 'what is 2+2']);
    expect(again.code).not.toBe(0);
    // Both failures stay out of the context: only the prompt being sent goes.
    expect(lastBody().messages).toEqual([{ role: 'user', content: 'what is 2+2' }]);

    const answered = await gatechat(['-m', 'echo', '-c', 'what is 2+2']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(lastBody().messages).toEqual([{ role: 'user', content: 'what is 2+2' }]);

    const next = await gatechat(['-m', 'echo', '-c', 'and 3+3?']);
    expect(next.code, next.stderr).toBe(0);
    expect(lastBody().messages).toEqual([
      { role: 'user', content: 'what is 2+2' },
      { role: 'assistant', content: 'what is 2+2' },
      { role: 'user', content: 'and 3+3?' },
    ]);
  });

  it('between answered turns, leaves them alternating as they were', async () => {
    expect((await gatechat(['-m', 'echo', 'one'])).code).toBe(0);
    expect((await gatechat(['-m', 'fail-503', '--retries', '0', '-c', 'two'])).code).not.toBe(0);
    expect((await gatechat(['-m', 'echo', '-c', 'two'])).code).toBe(0);
    expect(lastBody().messages).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'one' },
      { role: 'user', content: 'two' },
    ]);
  });
});

describe('an answer that ended in tool calls', () => {
  it('Chat Completions: the next message goes back as a role "tool" result after the assistant tool_calls', async () => {
    const tools = toolsFile();
    const first = await gatechat(['-m', 'tool', '--tools', tools, '--json', 'weather in Oslo']);
    expect(first.code, first.stderr).toBe(0);
    const [call] = JSON.parse(first.stdout).tool_calls;
    expect(call.name).toBe('get_weather');

    const next = await gatechat(['-m', 'echo', '--tools', tools, '-c', 'sunny, 21 C']);
    expect(next.code, next.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/chat/completions');
    expect(lastBody().messages).toEqual([
      { role: 'user', content: 'weather in Oslo' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(call.arguments) } }],
      },
      { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' },
    ]);
    expect(JSON.parse(lastBody().messages[1].tool_calls[0].function.arguments)).toEqual({ input: 'weather in Oslo' });

    // and the turn after that is an ordinary user message again
    await gatechat(['-m', 'echo', '-c', 'thanks']);
    expect(lastBody().messages.slice(3)).toEqual([
      { role: 'assistant', content: 'weather in Oslo' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('Messages: the next message goes back as tool_result blocks after the tool_use blocks', async () => {
    const tools = toolsFile();
    const first = await gatechat(['-m', 'tool', '--api', 'messages', '--tools', tools, '--json', 'weather in Oslo']);
    expect(first.code, first.stderr).toBe(0);
    const [call] = JSON.parse(first.stdout).tool_calls;

    const next = await gatechat(['-m', 'echo', '--api', 'messages', '--tools', tools, '-c', 'sunny, 21 C']);
    expect(next.code, next.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/messages');
    expect(lastBody().messages).toEqual([
      { role: 'user', content: 'weather in Oslo' },
      { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'get_weather', input: { input: 'weather in Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny, 21 C' }] },
    ]);
  });
});

describe('a tool call the gateway sent without an id', () => {
  // Streams as some gateways send them: the call's id is "" in every fragment, or absent.
  const chatStream = [
    { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: '', type: 'function', function: { name: 'get_weather', arguments: '' } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"input":"Oslo"}' } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, type: 'function', function: { name: 'get_time', arguments: '{}' } }] } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
  ].map((chunk) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'm', ...chunk })}\n\n`).join('') + 'data: [DONE]\n\n';
  const messagesStream = [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 0 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: '', name: 'get_weather', input: {} } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"input":"Oslo"}' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ].map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
  const streaming = (body: string) =>
    loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });

  it('Chat Completions: -c sends each call back with an id of its own, and its result with the same id; the gateway takes it', async () => {
    const server = await streaming(chatStream);
    const first = await runCli(['--base-url', server.url, '-m', 'm', '--json', 'weather and time'], { env: ctx.user.env() });
    expect(first.code, first.stderr).toBe(0);
    // --json says what the gateway sent.
    expect(JSON.parse(first.stdout).tool_calls.map((c: { id: string }) => c.id)).toEqual(['', '']);

    // The dev gateway refuses an empty id as the real ones do: this run fails unless gatechat names the calls.
    const next = await gatechat(['-m', 'echo', '-c', 'sunny, 12:00']);
    expect(next.code, next.stderr).toBe(0);
    const [, assistant, ...results] = lastBody().messages;
    const ids = assistant.tool_calls.map((c: { id: string }) => c.id);
    expect(ids).toEqual(['call_1', 'call_2']);
    expect(results).toEqual(ids.map((id: string) => ({ role: 'tool', tool_call_id: id, content: 'sunny, 12:00' })));

    // The next turn sends the same ids again.
    expect((await gatechat(['-m', 'echo', '-c', 'thanks'])).code).toBe(0);
    expect(lastBody().messages[1].tool_calls.map((c: { id: string }) => c.id)).toEqual(ids);
  });

  it('a Chat Completions call id the Messages interface refuses (Kimi\'s functions.name:0) is made valid when -c moves to --api messages', async () => {
    const kimiStream = chatStream.replace('"id":""', '"id":"functions.get_weather:0"');
    expect(kimiStream).toContain('functions.get_weather:0');
    const server = await streaming(kimiStream);
    const first = await runCli(['--base-url', server.url, '-m', 'm', '--json', 'weather and time'], { env: ctx.user.env() });
    expect(first.code, first.stderr).toBe(0);

    // The dev gateway refuses a tool_use id off Anthropic's pattern, as Anthropic does.
    const next = await gatechat(['-m', 'echo', '--api', 'messages', '-c', 'sunny, 12:00']);
    expect(next.code, next.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/messages');
    const [, assistant, results] = lastBody().messages;
    const ids = assistant.content.map((block: { id: string }) => block.id);
    expect(ids[0]).toBe('functions_get_weather_0');
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(results.content.map((block: { tool_use_id: string }) => block.tool_use_id)).toEqual(ids);
  });

  it('Messages: the tool_use block and its tool_result carry the same id of its own', async () => {
    const server = await streaming(messagesStream);
    const first = await runCli(['--base-url', server.url, '-m', 'm', '--api', 'messages', 'weather'], { env: ctx.user.env() });
    expect(first.code, first.stderr).toBe(0);

    const next = await gatechat(['-m', 'echo', '-c', 'sunny']);
    expect(next.code, next.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/messages');
    expect(lastBody().messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { input: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' }] },
    ]);
  });
});

describe("the conversation's own settings", () => {
  it('carry over to -c unless given again; flags win and become the conversation settings', async () => {
    const tools = toolsFile();
    const first = await gatechat(['-m', 'lorem-3', '--api', 'messages', '-s', 'be brief', '-t', '0.3', '--max-tokens', '50', '--tools', tools, '-o', 'top_p=0.5', '-o', 'seed=7', 'first']);
    expect(first.code, first.stderr).toBe(0);
    const firstBody = lastBody();

    // Neither the environment nor the config file override the conversation's model.
    expect((await runCli(['config', 'set', 'model', 'echo'], { env: ctx.user.env() })).code).toBe(0);
    expect((await runCli(['config', 'set', 'temperature', '1.5'], { env: ctx.user.env() })).code).toBe(0);
    const follow = await gatechat(['-c', 'follow'], { GATECHAT_MODEL: 'echo' });
    expect(follow.code, follow.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/messages');
    expect(lastBody()).toMatchObject({ model: 'lorem-3', system: 'be brief', temperature: 0.3, max_tokens: 50, tools: firstBody.tools, top_p: 0.5, seed: 7 });
    expect(lastBody().messages.at(-1)).toEqual({ role: 'user', content: 'follow' });

    const changed = await gatechat(['-c', '-m', 'echo', '--api', 'chat', '-s', 'be long', '-t', '1', '--max-tokens', '20', '-o', 'seed=9', 'again']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/chat/completions');
    // -o replaces only the fields it names
    expect(lastBody()).toMatchObject({ model: 'echo', temperature: 1, max_tokens: 20, top_p: 0.5, seed: 9 });
    expect(lastBody().messages[0]).toEqual({ role: 'system', content: 'be long' });
    expect(lastBody().tools).toEqual([{ type: 'function', function: expect.objectContaining({ name: 'get_weather' }) }]);

    // What the last run used is now the conversation's.
    const more = await gatechat(['-c', 'more']);
    expect(more.code, more.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/chat/completions');
    expect(lastBody()).toMatchObject({ model: 'echo', temperature: 1, max_tokens: 20, top_p: 0.5, seed: 9 });
    expect(lastBody().messages[0]).toEqual({ role: 'system', content: 'be long' });
  });

  it('-s "" drops the system prompt from then on; none is sent empty', async () => {
    expect((await gatechat(['-m', 'echo', '--api', 'messages', '-s', 'be brief', 'one'])).code).toBe(0);
    expect(lastBody().system).toBe('be brief');
    expect((await gatechat(['-c', '-s', '', 'two'])).code).toBe(0);
    expect(lastBody()).not.toHaveProperty('system');
    expect((await gatechat(['-c', 'three'])).code).toBe(0);
    expect(lastBody()).not.toHaveProperty('system');
    expect((await gatechat(['-m', 'echo', '-s', '', 'new'])).code).toBe(0);
    expect(lastBody().messages).toEqual([{ role: 'user', content: 'new' }]);
  });

  it('no temperature or max tokens in the conversation stays none when the config sets them later', async () => {
    expect((await gatechat(['-m', 'echo', 'plain'])).code).toBe(0);
    expect(lastBody()).not.toHaveProperty('temperature');
    expect((await runCli(['config', 'set', 'temperature', '1.5'], { env: ctx.user.env() })).code).toBe(0);
    expect((await runCli(['config', 'set', 'max-tokens', '99'], { env: ctx.user.env() })).code).toBe(0);
    expect((await gatechat(['-c', 'again'])).code).toBe(0);
    expect(lastBody()).not.toHaveProperty('temperature');
    expect(lastBody()).not.toHaveProperty('max_tokens');
    // A new conversation takes the config.
    expect((await gatechat(['-m', 'echo', 'new'])).code).toBe(0);
    expect(lastBody()).toMatchObject({ temperature: 1.5, max_tokens: 99 });
  });

  it('--cid of a file written before settings were recorded uses its header and last answer', async () => {
    const dir = join(ctx.user.dataDir, 'conversations');
    mkdirSync(dir, { recursive: true });
    const cid = '20260101-000000-abcd';
    const lines = [
      { type: 'meta', v: 1, cid, created: '2026-01-01T00:00:00.000Z', model: 'lorem-3', api: 'messages', system: 'old system' },
      { type: 'user', ts: '2026-01-01T00:00:01.000Z', content: 'old question' },
      {
        type: 'assistant', ts: '2026-01-01T00:00:02.000Z', content: 'old answer', reasoning: null, tool_calls: [], status: 'complete',
        finish_reason: 'stop', raw_finish_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 2 }, model: 'lorem-3', api: 'messages',
        params: { temperature: 0.5, max_tokens: 77, stream: true }, timings: { first_token_ms: 1, total_ms: 2 },
      },
    ];
    writeFileSync(join(dir, `${cid}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const next = await gatechat(['--cid', cid, 'new question']);
    expect(next.code, next.stderr).toBe(0);
    expect(lastRequest().path).toBe('/v1/messages');
    expect(lastBody()).toMatchObject({
      model: 'lorem-3',
      system: 'old system',
      temperature: 0.5,
      max_tokens: 77,
      messages: [
        { role: 'user', content: 'old question' },
        { role: 'assistant', content: 'old answer' },
        { role: 'user', content: 'new question' },
      ],
    });
  });
});
