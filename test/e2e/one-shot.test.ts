// The one-shot path as a user and a script meet it: the built binary against the dev gateway over
// real loopback HTTP, checking stdout, stderr, exit codes and the exact request bodies sent.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { makeUserDirs, runCli } from '../helpers/cli.js';

let gateway: RunningGateway;
let base: string;
const user = makeUserDirs();
const env = () => user.env();

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  base = `${gateway.url}/v1`;
});
afterAll(async () => {
  await gateway.close();
  user.cleanup();
});
beforeEach(() => {
  gateway.requests.length = 0;
});

const lastBody = () => gateway.requests[gateway.requests.length - 1]!.body as Record<string, any>;

describe('piped one-shot', () => {
  it('echo hi | gatechat --base-url … -m echo prints hi', async () => {
    const result = await runCli(['--base-url', base, '-m', 'echo'], { stdin: 'hi\n', env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('hi\n');
  });

  it('puts stdin first, a blank line, then the prompt arguments', async () => {
    const result = await runCli(['--base-url', base, '-m', 'echo', 'summarize', 'this'], { stdin: 'line one\nline two\n', env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(lastBody().messages).toEqual([{ role: 'user', content: 'line one\nline two\n\nsummarize this' }]);
    expect(result.stdout).toBe('line one\nline two\n\nsummarize this\n');
  });

  it('--no-stdin ignores piped input', async () => {
    const result = await runCli(['--base-url', base, '-m', 'echo', '--no-stdin', 'only this'], { stdin: 'ignored', env: env() });
    expect(result.stdout).toBe('only this\n');
  });

  it('an empty prompt is a usage error and nothing is sent', async () => {
    const result = await runCli(['--base-url', base, '-m', 'echo'], { stdin: '', env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/empty prompt/);
    expect(gateway.requests).toHaveLength(0);
  });

  it('refuses stdin over 8 MiB instead of truncating it', async () => {
    const result = await runCli(['--base-url', base, '-m', 'echo'], { stdin: Buffer.alloc(8 * 1024 * 1024 + 10, 97), env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/8 MiB/);
    expect(gateway.requests).toHaveLength(0);
  });

  // stdin is read through its descriptor (src/session/direct-stdin.ts), and by process.stdin where the
  // descriptor will not do: every kind of stdin gives the same prompt either way.
  describe('each kind of stdin', () => {
    const hasPerl = spawnSync('perl', ['-e', '1']).status === 0;
    /** Runs gatechat with `sh -c 'exec … < $IN'`: stdin a file, a FIFO or /dev/null instead of a pipe. */
    const redirected = (stdinPath: string, args: string[]) =>
      runCli(['--base-url', base, '-m', 'echo', '--no-save', ...args], { wrapper: ['sh', '-c', 'exec "$@" < "$GATECHAT_TEST_IN"', 'sh'], env: { ...env(), GATECHAT_TEST_IN: stdinPath } });

    it('a file', async () => {
      const file = join(user.home, 'prompt.txt');
      writeFileSync(file, 'from a file\n');
      const result = await redirected(file, ['and words']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('from a file\n\nand words\n');
    });

    it('a file over 8 MiB is refused, nothing sent', async () => {
      const file = join(user.home, 'big.txt');
      writeFileSync(file, Buffer.alloc(8 * 1024 * 1024 + 10, 97));
      const result = await redirected(file, []);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/8 MiB/);
      expect(gateway.requests).toHaveLength(0);
    });

    it('/dev/null: the prompt words alone', async () => {
      const result = await redirected('/dev/null', ['only words']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('only words\n');
    });

    it('a directory: what process.stdin makes of it (nothing read), the prompt words alone', async () => {
      const result = await redirected(user.home, ['words']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('words\n');
    });

    it('a FIFO written after gatechat started, in two writes', async () => {
      const fifo = join(user.home, 'prompt.fifo');
      execFileSync('mkfifo', [fifo]);
      const run = redirected(fifo, []);
      // Opening for writing waits for gatechat's shell to open the other end.
      const handle = await open(fifo, 'w');
      await handle.write('first half, ');
      await new Promise((resolve) => setTimeout(resolve, 100));
      await handle.write('second half\n');
      await handle.close();
      const result = await run;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('first half, second half\n');
    });

    it('a pipe written late, in two writes (read blocking: stderr is no terminal, no hint to give meanwhile)', async () => {
      const result = await runCli(['--base-url', base, '-m', 'echo', '--no-save'], {
        env: env(),
        stdin: 'open',
        onSpawn: (child) => {
          setTimeout(() => child.stdin!.write('slow '), 300);
          setTimeout(() => child.stdin!.end('writer\n'), 400);
        },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('slow writer\n');
    });

    it.skipIf(!hasPerl)('a pipe another process set non-blocking (the descriptor gives EAGAIN; the stream reads it)', async () => {
      // perl sets O_NONBLOCK on the pipe, then execs node: what a shell sees after another Node program
      // shared the pipe. The text comes only once gatechat has had time to find the pipe empty.
      const nonBlocking = ['perl', '-e', 'use Fcntl; my $f = fcntl(STDIN, F_GETFL, 0) or die; fcntl(STDIN, F_SETFL, $f | O_NONBLOCK) or die; exec @ARGV or die'];
      const result = await runCli(['--base-url', base, '-m', 'echo', '--no-save'], {
        wrapper: nonBlocking,
        env: env(),
        stdin: 'open',
        onSpawn: (child) => {
          setTimeout(() => child.stdin!.write('late '), 300);
          setTimeout(() => child.stdin!.end('text\n'), 400);
        },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('late text\n');
    });
  });

  it('streams long answers to stdout with no ANSI and a final newline', async () => {
    const result = await runCli(['--base-url', base, '-m', 'lorem-300', 'go'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split(/\s+/)).toHaveLength(300);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(result.stdout).not.toMatch(/\x1b\[/);
  });

  it('reasoning goes to stderr, never stdout; --no-reasoning hides it', async () => {
    const shown = await runCli(['--base-url', base, '-m', 'think', 'why'], { env: env() });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe('why\n');
    expect(shown.stderr.length).toBeGreaterThan(0);
    const hidden = await runCli(['--base-url', base, '-m', 'think', '--no-reasoning', 'why'], { env: env() });
    expect(hidden.stdout).toBe('why\n');
    expect(hidden.stderr).toBe('');
  });

  it('a length finish exits 0 with a warning on stderr', async () => {
    const result = await runCli(['--base-url', base, '-m', 'lorem-50', '--max-tokens', '5', 'go'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split(/\s+/)).toHaveLength(5);
    expect(result.stderr).toMatch(/token limit/);
  });
});

describe('output modes', () => {
  for (const api of ['chat', 'messages'] as const) {
    for (const stream of [true, false]) {
      it(`--json on ${api}, ${stream ? 'streaming' : 'not streaming'}`, async () => {
        const args = ['--base-url', base, '-m', 'echo', '--api', api, '--json', '--no-save', 'hello there'];
        if (!stream) args.push('--no-stream');
        const result = await runCli(args, { env: env() });
        expect(result.code, result.stderr).toBe(0);
        const json = JSON.parse(result.stdout);
        expect(json).toMatchObject({ text: 'hello there', finish_reason: 'stop', api, tool_calls: [], reasoning: null, cid: null });
        expect(json.usage.input_tokens).toBeGreaterThan(0);
        expect(json.usage.output_tokens).toBe(2);
        expect(typeof json.model).toBe('string');
        expect(result.stdout.trim().split('\n')).toHaveLength(1);
      });
    }
  }

  it('--jsonl prints the same vocabulary for both interfaces, done last', async () => {
    for (const api of ['chat', 'messages']) {
      const result = await runCli(['--base-url', base, '-m', 'think', '--api', api, '--jsonl', '--no-save', 'a b c'], { env: env() });
      expect(result.code, result.stderr).toBe(0);
      const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
      const types = new Set(events.map((e) => e.type));
      expect([...types].sort()).toEqual(['done', 'reasoning', 'text', 'usage']);
      expect(events.at(-1).type).toBe('done');
      expect(events.filter((e) => e.type === 'text').map((e) => e.delta).join('')).toBe('a b c');
      expect(events.at(-1).text).toBe('a b c');
      expect(result.stderr).toBe('');
    }
  });

  for (const api of ['chat', 'messages'] as const) {
    it(`--jsonl on ${api}: one usage event, the final counts, just before done`, async () => {
      // Messages sends usage twice (message_start, message_delta): a script summing usage lines
      // must not count the input twice.
      const result = await runCli(['--base-url', base, '-m', 'lorem-5', '--api', api, '--jsonl', '--no-save', 'one two three'], { env: env() });
      expect(result.code, result.stderr).toBe(0);
      const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
      const usage = events.filter((e) => e.type === 'usage');
      // SPEC §16: cache counts always present (null: not reported), cost null when unknown.
      expect(usage).toEqual([{ type: 'usage', input_tokens: 3, output_tokens: 5, cache_read_tokens: null, cache_write_tokens: null, cost: null }]);
      expect(events.at(-2)).toEqual(usage[0]);
      expect(events.at(-1).usage).toEqual({ input_tokens: 3, output_tokens: 5, cache_read_tokens: null, cache_write_tokens: null });
    });
  }

  for (const api of ['chat', 'messages'] as const) {
    for (const stream of [true, false]) {
      it(`--json of a dropped answer on ${api}, ${stream ? 'streaming' : 'not streaming'}: finish_reason from the documented set`, async () => {
        const args = ['--base-url', base, '-m', 'drop-after-3', '--api', api, '--json', '--retries', '0', '--no-save', 'hi'];
        if (!stream) args.push('--no-stream');
        const result = await runCli(args, { env: env() });
        expect(result.code, result.stderr).toBe(8);
        const json = JSON.parse(result.stdout);
        // Streamed, three words arrived first; not streamed, nothing did.
        expect(json.status).toBe(stream ? 'interrupted' : 'error');
        expect(['stop', 'length', 'tool_calls', 'content_filter', 'error', 'cancelled']).toContain(json.finish_reason);
        expect(json.finish_reason).toBe('error');
        expect(json.raw_finish_reason).toBeNull();
      });
    }
  }

  it('tool calls are printed after the text as JSON lines, arguments parsed', async () => {
    const toolsFile = join(user.home, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify([{ type: 'function', function: { name: 'lookup', description: 'find', parameters: { type: 'object', properties: { input: { type: 'string' } } } } }]));
    for (const api of ['chat', 'messages']) {
      const result = await runCli(['--base-url', base, '-m', 'tool', '--api', api, '--tools', toolsFile, '--no-save', 'paris'], { env: env() });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trim().split('\n');
      const call = JSON.parse(lines.at(-1)!);
      expect(call).toMatchObject({ type: 'tool_call', name: 'lookup', arguments: { input: 'paris' } });
      expect(typeof call.id).toBe('string');
    }
  });
});

describe('request bodies (SPEC §5.3)', () => {
  it('Chat Completions: system message first, temperature only when given, stream_options when streaming', async () => {
    await runCli(['--base-url', base, '-m', 'echo', '-s', 'be brief', '--no-save', 'hi'], { env: env() });
    expect(lastBody()).toEqual({
      model: 'echo',
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    await runCli(['--base-url', base, '-m', 'echo', '-t', '0.5', '--max-tokens', '100', '--no-stream', '--no-save', 'hi'], { env: env() });
    expect(lastBody()).toEqual({ model: 'echo', messages: [{ role: 'user', content: 'hi' }], temperature: 0.5, max_tokens: 100, stream: false });
  });

  it('Messages: max_tokens always (default 4096), top-level system, tools converted', async () => {
    const toolsFile = join(user.home, 'tools2.json');
    writeFileSync(toolsFile, JSON.stringify([{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} } } }]));
    await runCli(['--base-url', base, '-m', 'echo', '--api', 'messages', '-s', 'sys', '--tools', toolsFile, '--no-save', 'hi'], { env: env() });
    const body = lastBody();
    expect(body.max_tokens).toBe(4096);
    expect(body.system).toBe('sys');
    expect(body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(body.tools).toEqual([{ name: 'f', description: 'd', input_schema: { type: 'object', properties: {} } }]);
    expect(body.stream).toBe(true);
    expect(body).not.toHaveProperty('temperature');
    expect(gateway.requests.at(-1)!.path).toBe('/v1/messages');
  });

  it('switches once to max_completion_tokens when a 400 names it, with a warning', async () => {
    const result = await runCli(['--base-url', base, '-m', 'max-completion-tokens', '--max-tokens', '50', '--no-save', 'hi'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('hi\n');
    expect(gateway.requests).toHaveLength(2);
    expect(gateway.requests[0]!.body).toHaveProperty('max_tokens', 50);
    expect(gateway.requests[1]!.body).toHaveProperty('max_completion_tokens', 50);
    expect(gateway.requests[1]!.body).not.toHaveProperty('max_tokens');
    expect(result.stderr).toMatch(/max_completion_tokens/);
  });

  it('auth modes, -H headers and User-Agent reach the gateway; the key never reaches --verbose output', async () => {
    const key = 'sk-test-SECRET-9876';
    const bearer = await runCli(['--base-url', base, '-m', 'echo', '-H', 'X-Trace: abc', '--verbose', '--no-save', 'hi'], { env: { ...env(), GATECHAT_API_KEY: key } });
    expect(bearer.code, bearer.stderr).toBe(0);
    const headers = gateway.requests.at(-1)!.headers;
    expect(headers.authorization).toBe(`Bearer ${key}`);
    expect(headers['x-trace']).toBe('abc');
    expect(headers['user-agent']).toMatch(/^gatechat\//);
    expect(headers['content-type']).toMatch(/application\/json/);
    expect(bearer.stderr).not.toContain(key);
    expect(bearer.stderr).toMatch(/POST/);

    await runCli(['--base-url', base, '-m', 'echo', '--auth', 'x-api-key', '--no-save', 'hi'], { env: { ...env(), GATECHAT_API_KEY: key } });
    const vendor = gateway.requests.at(-1)!.headers;
    expect(vendor['x-api-key']).toBe(key);
    expect(vendor['anthropic-version']).toBe('2023-06-01');
    expect(vendor.authorization).toBeUndefined();
  });
});

describe('bad values fail with exit 2 before anything is sent', () => {
  const cases: Array<[string, string[]]> = [
    ['non-numeric temperature', ['-t', 'hot']],
    ['negative temperature', ['-t', '-1']],
    ['infinite temperature', ['-t', 'Infinity']],
    ['--max-tokens 0', ['--max-tokens', '0']],
    ['--max-tokens 1.5', ['--max-tokens', '1.5']],
    ['unknown --api', ['--api', 'completions']],
    ['unknown --auth', ['--auth', 'basic']],
    ['malformed header', ['-H', 'no-colon-here']],
    ['unreadable tools file', ['--tools', '/nonexistent/tools.json']],
    ['malformed base URL', ['--base-url', 'not a url']],
    ['ftp base URL', ['--base-url', 'ftp://example.com']],
    ['negative retries', ['--retries', '-1']],
    ['zero timeout', ['--timeout', '0']],
    ['unknown option', ['--frobnicate']],
    ['--json with --jsonl', ['--json', '--jsonl']],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const full = args.includes('--base-url') ? [...args, '-m', 'echo', 'hi'] : ['--base-url', base, '-m', 'echo', ...args, 'hi'];
      const result = await runCli(full, { env: env() });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
      expect(gateway.requests).toHaveLength(0);
    });
  }

  it('tools file with invalid JSON or the wrong shape', async () => {
    const bad = join(user.home, 'bad-tools.json');
    writeFileSync(bad, '[{"type": "function", ');
    let result = await runCli(['--base-url', base, '-m', 'echo', '--tools', bad, 'hi'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not valid JSON/);
    writeFileSync(bad, '{"name": "x"}');
    result = await runCli(['--base-url', base, '-m', 'echo', '--tools', bad, 'hi'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/array/);
    expect(gateway.requests).toHaveLength(0);
  });

  it('missing base URL or model names the config command to run', async () => {
    let result = await runCli(['hi'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/gatechat config set base-url/);
    result = await runCli(['--base-url', base, 'hi'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/gatechat config set model/);
    expect(gateway.requests).toHaveLength(0);
  });
});
