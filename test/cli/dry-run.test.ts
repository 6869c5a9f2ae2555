// --dry-run prints the request gatechat would send, exactly, with secrets masked, and sends nothing;
// -v shows the request body (key masked) and a failed request's response body. Built binary, dev gateway.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const KEY = 'sk-dryrun-secret-7788';
const env = () => ({ ...ctx.user.env(), GATECHAT_API_KEY: KEY });

describe('--dry-run', () => {
  it('prints method, URL, masked headers and the body as JSON, exits 0, sends nothing, records nothing', async () => {
    const result = await runCli(
      ['--dry-run', '--base-url', ctx.base, '-m', 'echo', '-s', 'be brief', '-t', '0.3', '-o', 'top_p=0.9', '-H', 'X-Team: blue', '-H', 'X-Auth-Token: tok-abc-123', 'hello'],
      { env: env(), stdin: 'from stdin' },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      method: 'POST',
      url: `${ctx.base}/chat/completions`,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': expect.stringMatching(/^gatechat\/\d+\.\d+\.\d+/),
        'Accept-Encoding': 'gzip',
        Authorization: 'Bearer [redacted]',
        'X-Team': 'blue',
        'X-Auth-Token': '[redacted]',
      },
      body: {
        model: 'echo',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'from stdin\n\nhello' },
        ],
        temperature: 0.3,
        stream: true,
        stream_options: { include_usage: true },
        top_p: 0.9,
      },
    });
    expect(result.stdout).not.toContain(KEY);
    expect(result.stdout).not.toContain('tok-abc-123');
    expect(ctx.gateway.requests).toHaveLength(0);
    expect((await runCli(['history', 'list', '--json'], { env: ctx.user.env() })).stdout).toBe('[]\n');
  });

  it('is the exact body the gateway then receives (Messages, x-api-key, --no-stream)', async () => {
    const args = ['--base-url', ctx.base, '-m', 'echo', '--api', 'messages', '--auth', 'x-api-key', '--no-stream', '--max-tokens', '50', '--no-save', 'same body'];
    const dry = await runCli(['--dry-run', ...args], { env: env() });
    expect(dry.code, dry.stderr).toBe(0);
    const described = JSON.parse(dry.stdout);
    expect(described.url).toBe(`${ctx.base}/messages`);
    expect(described.headers['x-api-key']).toBe('[redacted]');
    expect(described.headers['anthropic-version']).toBe('2023-06-01');
    expect(ctx.gateway.requests).toHaveLength(0);
    const sent = await runCli(args, { env: env() });
    expect(sent.code, sent.stderr).toBe(0);
    expect(ctx.gateway.requests).toHaveLength(1);
    expect(JSON.stringify(ctx.gateway.requests[0]!.body)).toBe(JSON.stringify(described.body));
  });

  it('with -c shows the context it would send, and adds nothing to the conversation', async () => {
    expect((await runCli(['--base-url', ctx.base, '-m', 'echo', 'first'], { env: env() })).code).toBe(0);
    const dry = await runCli(['--dry-run', '-c', '--base-url', ctx.base, 'second'], { env: env() });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).body.messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'second' },
    ]);
    const show = JSON.parse((await runCli(['history', 'show', '--json'], { env: ctx.user.env() })).stdout);
    expect(show.filter((r: { type: string }) => r.type === 'user')).toHaveLength(1);
    expect(ctx.gateway.requests).toHaveLength(1);
  });

  it('bad input still fails first: exit 2, nothing printed on stdout', async () => {
    const result = await runCli(['--dry-run', '--base-url', ctx.base, '-m', 'echo', '-o', 'model=x', 'hi'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});

describe('-v', () => {
  it('shows the request body with the key masked', async () => {
    const result = await runCli(['-v', '--base-url', ctx.base, '-m', 'echo', '--no-save', `key ${KEY} inside`], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'key [redacted] inside' }], stream: true, stream_options: { include_usage: true } });
    expect(result.stderr.split('\n')).toContain(`gatechat: > body: ${body}`);
    expect(result.stderr).not.toContain(KEY);
  });

  it('shows a failed request\'s response body', async () => {
    const result = await runCli(['-v', '--base-url', ctx.base, '-m', 'fail-400', '--no-save', 'hi'], { env: env() });
    expect(result.code).toBe(4);
    const line = result.stderr.split('\n').find((l) => l.startsWith('gatechat: < body: '));
    expect(line).toBeDefined();
    expect(JSON.parse(line!.slice('gatechat: < body: '.length)).error.message).toMatch(/fail-400/);
  });
});
