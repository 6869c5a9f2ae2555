// SPEC §4: a gateway error reads as one line holding the innermost message. The recordings in
// test/fixtures/claude-code-router/ are what claude-code-router (a Messages → OpenAI-style router)
// really sent for upstream failures of the dev gateway (see PROVENANCE.md there): the upstream's JSON
// inside a message string plus a stack trace, and in-stream errors whose message is JSON. They are
// replayed over loopback HTTP to the built binary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeUserDirs, repoRoot, runCli } from '../helpers/cli.js';
import { useLoopbackServers } from '../transport/loopback.js';

interface Recording {
  request: { method: string; path: string; body: Record<string, unknown> };
  response: { status: number; headers: Record<string, string>; body: string };
}

const fixtures = join(repoRoot, 'test', 'fixtures', 'claude-code-router');
const recording = (name: string): Recording => JSON.parse(readFileSync(join(fixtures, `${name}.json`), 'utf8')) as Recording;
const server = useLoopbackServers();

async function replay(name: string, extraArgs: string[] = []) {
  const { response } = recording(name);
  const s = await server((_req, res) => {
    res.writeHead(response.status, response.headers);
    res.end(response.body);
  });
  const user = makeUserDirs();
  try {
    const result = await runCli(['--base-url', s.url, '--api', 'messages', '-m', 'dev,x', '--retries', '0', '--no-save', ...extraArgs, 'hi'], {
      env: user.env(),
    });
    return { ...result, requests: s.requests.length };
  } finally {
    user.cleanup();
  }
}

/** The one error line; the gateway's part of it is what follows "HTTP nnn: " (or the stream error's colon). */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines, stderr).toHaveLength(1);
  const [line] = lines;
  // No stack frames, no file paths, no JSON left to read.
  expect(line).not.toMatch(/\bat \S+ \(|node:internal|\/tmp\/|cli\.js|\{"/);
  expect(line.length).toBeLessThanOrEqual(400);
  return line;
}

const httpCases = [
  { name: 'http-500', exit: 6, message: 'gatechat dev gateway: simulated 500 Internal Server Error (model fail-500)' },
  { name: 'http-400', exit: 4, message: 'gatechat dev gateway: simulated 400 Bad Request (model fail-400)' },
  { name: 'http-401', exit: 3, message: 'gatechat dev gateway: simulated 401 Unauthorized (model fail-401)' },
  { name: 'http-429', exit: 5, message: 'gatechat dev gateway: simulated 429 Too Many Requests (model fail-429)' },
  { name: 'http-500-provider-error', exit: 6, message: 'gatechat dev gateway: simulated provider error inside the stream (model error-chunk)' },
  { name: 'http-500-upstream-down', exit: 6, message: 'fetch failed' },
];

describe('claude-code-router error bodies: one line with the innermost message', () => {
  for (const c of httpCases) {
    it(`${c.name} → exit ${c.exit}, one line`, async () => {
      const result = await replay(c.name);
      expect(result.code, result.stderr).toBe(c.exit);
      expect(result.stdout).toBe('');
      const line = oneLine(result.stderr);
      expect(line).toContain(`HTTP ${recording(c.name).response.status}`);
      expect(line).toContain(c.message);
      // The message is said once: the stack trace's header repeats it, and that copy goes too.
      expect(line.split(c.message)).toHaveLength(2);
    });
  }

  it('the wrapper names the provider before the innermost message', async () => {
    const line = oneLine((await replay('http-500')).stderr);
    expect(line).toBe(
      'gatechat: gateway error: HTTP 500: Error from provider(dev,fail-500: 500): gatechat dev gateway: simulated 500 Internal Server Error (model fail-500)',
    );
  });

  it('-v shows the whole body, stack trace included', async () => {
    const { response } = recording('http-500');
    const result = await replay('http-500', ['-v']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(response.body);
    // The short line is still the last one.
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^gatechat: gateway error: HTTP 500: Error from provider\(dev,fail-500: 500\): gatechat dev gateway: simulated 500/);
  });
});

describe('claude-code-router in-stream errors: the message inside the message', () => {
  const cases = [
    { name: 'stream-error-event', message: 'gatechat dev gateway: simulated mid-stream error (model error-event): upstream overloaded' },
    { name: 'stream-error-chunk', message: 'gatechat dev gateway: simulated provider error inside the stream (model error-chunk)' },
  ];
  for (const c of cases) {
    it(`${c.name} → the text that arrived, exit 6, one line with the upstream's message`, async () => {
      const result = await replay(c.name);
      expect(result.code, result.stderr).toBe(6);
      expect(result.stdout).toBe('Lorem ipsum dolor\n');
      const line = oneLine(result.stderr);
      expect(line).toContain(c.message);
      expect(line).not.toContain('no message');
    });
  }

  it('-v shows the whole error event', async () => {
    const result = await replay('stream-error-event', ['-v']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('{\\"message\\":\\"gatechat dev gateway: simulated mid-stream error (model error-event): upstream overloaded\\"');
  });
});
