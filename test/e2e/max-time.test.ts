// SPEC §20 "Limits" and §7 (issue 15 point 5): --max-time bounds a whole request, retries included,
// like curl's; keep-alive comments count as activity for --timeout, so --max-time is what ends them.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';
import { startHostileGateway, type HostileGateway } from '../helpers/hostile-gateway.js';
import { closedPort } from '../helpers/ports.js';

let gateway: HostileGateway;
let user: ReturnType<typeof makeUserDirs>;

beforeAll(async () => {
  gateway = await startHostileGateway();
});
afterAll(() => gateway.close());
beforeEach(() => {
  user = makeUserDirs();
});
afterEach(() => user.cleanup());

const lines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '');

async function timed(args: string[], timeoutMs = 20_000) {
  const started = Date.now();
  const result = await runCli(args, { env: user.env(), timeoutMs });
  return { ...result, seconds: (Date.now() - started) / 1000 };
}

describe.each(['chat', 'messages'] as const)('--max-time on %s', (api) => {
  it('keep-alive comments count as activity: --timeout 1 never ends a stream of them', async () => {
    const result = await timed(['--base-url', gateway.base, '-m', 'keep-alive-forever', '--api', api, '--timeout', '1', '--no-save', 'hi'], 3500);
    // Still running at 3.5 s, three idle timeouts later: killed by the test, not ended by gatechat.
    expect(result.signal).toBe('SIGKILL');
  });

  it('ends an endless stream of keep-alive comments: exit 7, one line', async () => {
    const result = await timed(['--base-url', gateway.base, '-m', 'keep-alive-forever', '--api', api, '--timeout', '1', '--max-time', '2', 'hi']);
    expect(result.code, result.stderr).toBe(7);
    expect(lines(result.stderr)).toEqual(['gatechat: gave up after 2 s (--max-time)']);
    expect(result.seconds).toBeGreaterThanOrEqual(2);
    expect(result.seconds).toBeLessThan(8);
  });
});

describe('--max-time', () => {
  it('includes the retries: a refused connection retried 10 times gives up at the deadline', async () => {
    const port = await closedPort();
    const result = await timed(['--base-url', `http://127.0.0.1:${port}/v1`, '-m', 'x', '--retries', '10', '--max-time', '1.5', '--no-save', 'hi']);
    expect(result.code, result.stderr).toBe(7);
    expect(lines(result.stderr).at(-1)).toBe('gatechat: gave up after 1.5 s (--max-time)');
    expect(result.seconds).toBeLessThan(6);
  });

  it("sets --no-stream's wait for the whole answer lower than 600 s", async () => {
    const result = await timed(['--base-url', gateway.base, '-m', 'silent', '--no-stream', '--max-time', '1', '--no-save', 'hi']);
    expect(result.code, result.stderr).toBe(7);
    expect(lines(result.stderr)).toEqual(['gatechat: gave up after 1 s (--max-time)']);
    expect(result.seconds).toBeLessThan(6);
  });

  it('comes from the max-time key too, and a flag wins over it', async () => {
    const set = await runCli(['config', 'set', 'max-time', '30'], { env: user.env() });
    expect(set.code, set.stderr).toBe(0);
    const byKey = await timed(['--base-url', gateway.base, '-m', 'silent', '--no-stream', '--no-save', 'hi'], 3000);
    // 30 s from the key: still waiting when the test stops it.
    expect(byKey.signal).toBe('SIGKILL');
    const byFlag = await timed(['--base-url', gateway.base, '-m', 'silent', '--no-stream', '--max-time', '1', '--no-save', 'hi']);
    expect(lines(byFlag.stderr)).toEqual(['gatechat: gave up after 1 s (--max-time)']);
    const setLow = await runCli(['config', 'set', 'max-time', '1'], { env: user.env() });
    expect(setLow.code, setLow.stderr).toBe(0);
    const low = await timed(['--base-url', gateway.base, '-m', 'silent', '--no-stream', '--no-save', 'hi']);
    expect(low.code).toBe(7);
    expect(lines(low.stderr)).toEqual(['gatechat: gave up after 1 s (--max-time)']);
  });

  it('refuses a value that is not a number of seconds > 0 before sending anything (exit 2)', async () => {
    gateway.requests.length = 0;
    for (const value of ['0', 'soon', '-3']) {
      const result = await runCli(['--base-url', gateway.base, '-m', 'silent', '--max-time', value, '--no-save', 'hi'], { env: user.env() });
      expect(result.code, value).toBe(2);
      expect(lines(result.stderr)[0]).toMatch(/--max-time/);
    }
    expect(gateway.requests.filter((request) => request.attack === 'silent')).toEqual([]);
  });

  it('batch: each line gets the bound', async () => {
    const { writeFileSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const input = join(user.home, 'in.jsonl');
    writeFileSync(input, '{"id":"a","prompt":"hi"}\n');
    const output = join(user.home, 'out.jsonl');
    const result = await timed(['batch', input, '--output', output, '--base-url', gateway.base, '-m', 'keep-alive-forever', '--max-time', '1']);
    expect(result.code, result.stderr).toBe(7);
    expect(JSON.parse(readFileSync(output, 'utf8'))).toMatchObject({ id: 'a', error: { exit_code: 7, message: 'gave up after 1 s (--max-time)' } });
  });
});
