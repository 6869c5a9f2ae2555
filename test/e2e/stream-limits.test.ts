// SPEC §20 "Limits" (issue 22 point 5): a hostile stream ends with exit 6 and one line naming the
// limit, and the built binary stays under 400 MiB of memory doing it — a gzip bomb included.
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeUserDirs, runCli, type CliResult } from '../helpers/cli.js';
import { startHostileGateway, type HostileGateway } from '../helpers/hostile-gateway.js';

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

const MAX_RSS_KIB = 400 * 1024;

/** Runs the binary under GNU time: its peak RSS (KiB) is the last line of stderr, taken off it. */
export async function runMeasured(args: string[], env: Record<string, string>, options: { stdoutTo?: string } = {}): Promise<CliResult & { peakKiB: number }> {
  const time = ['/usr/bin/time', '-f', 'peak-rss-kib %M'];
  // A file for stdout keeps hundreds of MiB of answer out of the test runner's memory.
  const wrapper = options.stdoutTo ? ['sh', '-c', 'exec "$@" > "$0"', options.stdoutTo, ...time] : time;
  const result = await runCli(args, { env, wrapper, timeoutMs: 90_000 });
  const match = /peak-rss-kib (\d+)\n?$/.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  // GNU time's own note about the exit status is not the program's.
  const stderr = result.stderr.slice(0, match!.index).replace(/^Command exited with non-zero status \d+\n/m, '');
  console.info(`peak RSS ${Math.round(Number(match![1]) / 1024)} MiB: gatechat ${args.join(' ')}`);
  return { ...result, stderr, peakKiB: Number(match![1]) };
}

const lines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '');

// Each run here pushes 64–256 MiB through the binary. The 256 MiB answer runs once per output (piped
// on chat, --json on messages): the answer limit is kept by the SSE reader both interfaces share. hostile-gateway.test.ts runs the gzip bomb piped and on a
// terminal on both interfaces, and the endless answer for 3 s, under the same 400 MiB.
describe.each(['chat', 'messages'] as const)('limits on %s', (api) => {
  it(`a gzip bomb (one endless SSE line), --json: exit 6, one line naming 64 MiB, peak RSS under 400 MiB`, async () => {
    const args = ['--json', '--base-url', gateway.base, '-m', 'gzip-bomb', '--api', api, '--retries', '0', 'hi'];
    const result = await runMeasured(args, user.env());
    expect(result.code, result.stderr).toBe(6);
    expect(lines(result.stderr)).toEqual([expect.stringMatching(/SSE line or event over 64 MiB \(the limit\)/)]);
    expect(result.peakKiB).toBeLessThan(MAX_RSS_KIB);
  }, 120_000);
});

describe('the 256 MiB answer limit', () => {
  it('an endless answer on chat, piped: exit 6 at 256 MiB with one line naming the limit, peak RSS under 400 MiB', async () => {
    const out = join(user.home, 'answer.txt');
    const result = await runMeasured(['--base-url', gateway.base, '-m', 'data-forever', '--api', 'chat', '--retries', '0', '--no-save', 'hi'], user.env(), { stdoutTo: out });
    expect(result.code, result.stderr.slice(-500)).toBe(6);
    expect(lines(result.stderr)).toEqual([expect.stringMatching(/answer is over 256 MiB \(the limit for one answer\)/)]);
    // What arrived before the limit was printed (piped: as it came).
    expect(statSync(out).size).toBeGreaterThan(64 * 1024 * 1024);
    expect(result.peakKiB).toBeLessThan(MAX_RSS_KIB);
  }, 120_000);

  it('an endless answer on messages with --json, saved: one object with the whole text up to 256 MiB, the conversation saved in parts, peak RSS under 400 MiB', async () => {
    const out = join(user.home, 'answer.json');
    const result = await runMeasured(['--json', '--base-url', gateway.base, '-m', 'data-forever', '--api', 'messages', '--retries', '0', 'hi'], user.env(), { stdoutTo: out });
    expect(result.code, result.stderr.slice(-500)).toBe(6);
    // The object is whole: its text first, then the other fields, and the limit named in its error.
    const size = statSync(out).size;
    expect(size).toBeGreaterThan(200 * 1024 * 1024);
    const fd = openSync(out, 'r');
    const head = Buffer.alloc(64);
    const tail = Buffer.alloc(2048);
    readSync(fd, head, 0, 64, 0);
    readSync(fd, tail, 0, 2048, size - 2048);
    closeSync(fd);
    expect(head.toString()).toMatch(/^\{"text":"x{40}/);
    expect(tail.toString()).toMatch(/x","reasoning":null,.*"status":"interrupted".*"error":\{"message":"the gateway's answer is over 256 MiB.*"exit_code":6\}\}\n$/s);
    // Saved as it streamed, in parts: the conversation holds the answer too.
    const conversations = join(user.dataDir, 'conversations');
    const saved = readdirSync(conversations).map((name) => statSync(join(conversations, name)).size);
    expect(Math.max(...saved)).toBeGreaterThan(200 * 1024 * 1024);
    expect(result.peakKiB).toBeLessThan(MAX_RSS_KIB);
  }, 180_000);
});
