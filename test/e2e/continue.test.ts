// Continuing a saved conversation (-c / --cid) through the built binary against the dev gateway:
// the exact messages and settings the gateway receives (SPEC §6).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();

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
