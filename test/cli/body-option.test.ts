// `-o key=value` (SPEC §2): extra body fields reach the gateway exactly, on both interfaces, merged
// after everything gatechat builds; fields gatechat builds itself are refused before anything is sent.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const run = (args: string[]) => runCli(['--base-url', ctx.base, '-m', 'echo', '--no-save', ...args], { env: ctx.user.env() });

describe('-o, --option key=value', () => {
  it('adds JSON values as JSON and anything else as a string (Chat Completions)', async () => {
    const result = await run([
      '-o', 'top_p=0.9',
      '-o', 'thinking={"type":"enabled","budget_tokens":2048}',
      '--option', 'reasoning_effort=high',
      '-o', 'stop=["\\n\\n"]',
      '-o', 'seed=007',
      '-o', 'user=',
      '-o', 'logprobs=true',
      'hi',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('hi\n');
    expect(ctx.gateway.requests).toHaveLength(1);
    expect(ctx.gateway.requests[0]!.path).toBe('/v1/chat/completions');
    expect(JSON.stringify(ctx.gateway.requests[0]!.body)).toBe(
      JSON.stringify({
        model: 'echo',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
        top_p: 0.9,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        reasoning_effort: 'high',
        stop: ['\n\n'],
        seed: '007',
        user: '',
        logprobs: true,
      }),
    );
  });

  it('is merged last on Messages too, so it can replace a field gatechat sets (max_tokens)', async () => {
    const result = await run(['--api', 'messages', '-s', 'be brief', '-o', 'max_tokens=64', '-o', 'top_k=5', '-o', 'metadata={"user_id":"u1"}', 'hi']);
    expect(result.code, result.stderr).toBe(0);
    expect(ctx.gateway.requests[0]!.path).toBe('/v1/messages');
    expect(JSON.stringify(ctx.gateway.requests[0]!.body)).toBe(
      JSON.stringify({
        model: 'echo',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
        system: 'be brief',
        stream: true,
        top_k: 5,
        metadata: { user_id: 'u1' },
      }),
    );
  });

  it('the last -o for a key wins', async () => {
    const result = await run(['-o', 'top_p=0.1', '-o', 'top_p=0.5', 'hi']);
    expect(result.code, result.stderr).toBe(0);
    expect((ctx.gateway.requests[0]!.body as Record<string, unknown>).top_p).toBe(0.5);
  });

  it('is sent with --no-stream as well', async () => {
    const result = await run(['--no-stream', '-o', 'n=1', 'hi']);
    expect(result.code, result.stderr).toBe(0);
    expect(ctx.gateway.requests[0]!.body).toEqual({ model: 'echo', messages: [{ role: 'user', content: 'hi' }], stream: false, n: 1 });
  });

  it.each([
    ['model=gpt-4o', 'gatechat: --option: model is built by gatechat and cannot be an extra body field (use -m)\n'],
    ['messages=[]', 'gatechat: --option: messages is built by gatechat and cannot be an extra body field (they come from the prompt and the conversation)\n'],
    ['stream=false', 'gatechat: --option: stream is built by gatechat and cannot be an extra body field (use --stream or --no-stream)\n'],
    ['top_p', 'gatechat: --option: expected key=value, got "top_p"\n'],
    ['=1', 'gatechat: --option: expected key=value, got "=1"\n'],
  ])('-o %s is refused: exit 2, one line, nothing sent', async (assignment, stderr) => {
    const result = await run(['-o', assignment, 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(stderr);
    expect(result.stdout).toBe('');
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});
