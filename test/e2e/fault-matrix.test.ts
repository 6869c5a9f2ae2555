// The fault matrix (issue 3): the built binary against every fault model of the dev gateway, on
// both interfaces, streaming and not. Each case checks the exit code (SPEC §4), that stdout holds
// exactly the text that arrived before the fault, one clear stderr line naming the fault, and how
// many requests reached the gateway (retries bounded, none after the first answer byte).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { makeUserDirs, runCli } from '../helpers/cli.js';

let gateway: RunningGateway;
const user = makeUserDirs();
/** The first N lorem words exactly as the client prints them, taken from a clean lorem-N answer. */
const lorem = new Map<number, string>();

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  for (const n of [3, 5]) {
    const clean = await runCli(['--base-url', `${gateway.url}/v1`, '-m', `lorem-${n}`, '--no-save', 'x'], { env: user.env() });
    lorem.set(n, clean.stdout);
  }
});
afterAll(async () => {
  await gateway.close();
  user.cleanup();
});
beforeEach(async () => {
  // Empties the request log and the flaky-K counters.
  await fetch(`${gateway.url}/__gatechat/requests`, { method: 'DELETE' });
});

type Api = 'chat' | 'messages';
interface Expectation {
  code: number;
  /** 'none': nothing on stdout; a number: exactly that many lorem words; 'echo': the prompt. */
  stdout: 'none' | 'echo' | number;
  requests: number;
  stderr?: RegExp;
}
interface Row {
  model: string;
  args?: string[];
  expect: (api: Api, stream: boolean) => Expectation;
}

const same = (e: Expectation) => () => e;
const rows: Row[] = [
  { model: 'fail-401', args: ['--retries', '2'], expect: same({ code: 3, stdout: 'none', requests: 1, stderr: /HTTP 401.*simulated 401.*api-key/ }) },
  { model: 'fail-403', args: ['--retries', '2'], expect: same({ code: 3, stdout: 'none', requests: 1, stderr: /HTTP 403/ }) },
  { model: 'fail-404', args: ['--retries', '2'], expect: same({ code: 4, stdout: 'none', requests: 1, stderr: /HTTP 404.*simulated 404/ }) },
  { model: 'fail-429', args: ['--retries', '1'], expect: same({ code: 5, stdout: 'none', requests: 2, stderr: /HTTP 429/ }) },
  { model: 'fail-429-120', args: ['--retries', '2'], expect: same({ code: 5, stdout: 'none', requests: 1, stderr: /HTTP 429.*120 s/ }) },
  { model: 'fail-429-ms-100', args: ['--retries', '2'], expect: same({ code: 5, stdout: 'none', requests: 3, stderr: /HTTP 429/ }) },
  { model: 'fail-500', args: ['--retries', '1'], expect: same({ code: 6, stdout: 'none', requests: 2, stderr: /HTTP 500/ }) },
  { model: 'fail-500-noretry', args: ['--retries', '2'], expect: same({ code: 6, stdout: 'none', requests: 1, stderr: /HTTP 500/ }) },
  { model: 'fail-503', args: ['--retries', '0'], expect: same({ code: 6, stdout: 'none', requests: 1, stderr: /HTTP 503/ }) },
  { model: 'html-502', args: ['--retries', '0'], expect: same({ code: 6, stdout: 'none', requests: 1, stderr: /HTTP 502.*502 Bad Gateway/ }) },
  { model: 'flaky-2', args: ['--retries', '2'], expect: same({ code: 0, stdout: 'echo', requests: 3 }) },
  { model: 'flaky-3', args: ['--retries', '2'], expect: same({ code: 6, stdout: 'none', requests: 3, stderr: /HTTP 503/ }) },
  {
    model: 'drop-after-5',
    args: ['--retries', '2'],
    expect: (_api, stream) => ({ code: 8, stdout: stream ? 5 : 'none', requests: 1, stderr: /interrupted/ }),
  },
  {
    model: 'stall-after-3',
    args: ['--retries', '2', '--timeout', '1'],
    expect: (_api, stream) => ({ code: 7, stdout: stream ? 3 : 'none', requests: 1, stderr: /no data from the gateway for 1 s/ }),
  },
  {
    model: 'eof-after-3',
    args: ['--retries', '2'],
    // A JSON body that stops early is the non-stream form of a stream without its end marker: exit 8.
    expect: (_api, stream) =>
      stream ? { code: 8, stdout: 3, requests: 1, stderr: /interrupted/ } : { code: 8, stdout: 'none', requests: 1, stderr: /cut off/ },
  },
  { model: 'no-done', expect: same({ code: 0, stdout: 'echo', requests: 1 }) },
  {
    model: 'error-event',
    args: ['--retries', '0'],
    expect: (api, stream) =>
      stream
        ? { code: 6, stdout: 3, requests: 1, stderr: /error inside the stream.*(upstream overloaded|Overloaded)/ }
        : { code: 6, stdout: 'none', requests: 1, stderr: api === 'chat' ? /HTTP 503/ : /HTTP 529.*Overloaded/ },
  },
  {
    model: 'error-chunk',
    args: ['--retries', '2'],
    expect: (_api, stream) => ({ code: 6, stdout: stream ? 3 : 'none', requests: 1, stderr: /simulated provider error/ }),
  },
  {
    model: 'keepalive-only-2',
    args: ['--retries', '0', '--timeout', '1.5'],
    // Keep-alive comments count as activity on a stream; without streaming the headers come after
    // 2 s, within the whole-answer wait (the larger of --timeout and 600 s, SPEC §7).
    expect: same({ code: 0, stdout: 'echo', requests: 1 }),
  },
  // slow-N takes max_tokens as its length: five words 20 ms apart, a normal finish.
  { model: 'slow-20', args: ['--max-tokens', '5'], expect: same({ code: 0, stdout: 5, requests: 1 }) },
];

const prompt = 'are you there';

describe('fault matrix: exit code, stdout, stderr and request count', () => {
  for (const row of rows) {
    for (const api of ['chat', 'messages'] as const) {
      for (const stream of [true, false]) {
        const expected = row.expect(api, stream);
        it(`${row.model} · ${api} · ${stream ? 'stream' : 'json'} → exit ${expected.code}, ${expected.requests} request(s)`, async () => {
          const args = ['--base-url', `${gateway.url}/v1`, '-m', row.model, '--api', api, '--no-save', ...(row.args ?? [])];
          if (!stream) args.push('--no-stream');
          const result = await runCli([...args, prompt], { env: user.env(), timeoutMs: 25_000 });

          expect(result.signal, 'the client must never hang').toBeNull();
          expect(result.code, result.stderr).toBe(expected.code);
          if (expected.stdout === 'none') expect(result.stdout).toBe('');
          else if (expected.stdout === 'echo') expect(result.stdout).toBe(`${prompt}\n`);
          else expect(result.stdout).toBe(lorem.get(expected.stdout) ?? `(no lorem-${expected.stdout} sample)`);

          const errorLines = result.stderr.split('\n').filter((line) => line && !/retry \d+ of \d+/.test(line));
          if (expected.code === 0 && !expected.stderr) {
            expect(errorLines).toEqual([]);
          } else {
            expect(errorLines).toHaveLength(1);
            expect(errorLines[0]).toMatch(expected.stderr!);
          }
          expect(gateway.requests.filter((r) => r.path.startsWith('/v1/'))).toHaveLength(expected.requests);
        });
      }
    }
  }
});
