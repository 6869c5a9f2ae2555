// Issue 22 "Done when" (SPEC §20): every attack of the hostile gateway, on both interfaces, against the
// built binary on a terminal and piped — no escape sequence of the gateway's reaches the terminal, the key
// leaks nowhere (stderr, stdout, saved files), and memory stays under 400 MiB.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';
import { ATTACKS, startHostileGateway, type Attack, type HostileGateway } from '../helpers/hostile-gateway.js';
import { runInPty, visible } from '../helpers/pty.js';

let gateway: HostileGateway;
type User = ReturnType<typeof makeUserDirs>;

beforeAll(async () => {
  gateway = await startHostileGateway();
});
afterAll(() => gateway.close());
/** Each test its own HOME, config and data dirs: the tests run at once (most of their time is --max-time waits). */
async function asUser(run: (user: User) => Promise<void>): Promise<void> {
  const user = makeUserDirs();
  try {
    await run(user);
  } finally {
    user.cleanup();
  }
}

/** Distinctive, so any piece of it found anywhere is a leak. */
const KEY = 'sk-hostile-4f9c2a7e81d0b3c6-KEYEND';
const KEY_PIECES = [KEY, KEY.slice(8, 24), Buffer.from(KEY).toString('base64').slice(0, 20)];
const MAX_RSS_KIB = 400 * 1024;
const TIME = ['/usr/bin/time', '-f', 'peak-rss-kib %M'];

/** What a hostile gateway's bytes could do on a terminal: OSC (title, clipboard), BEL, C1 controls, a clear. */
// eslint-disable-next-line no-control-regex
const TERMINAL_ATTACK = /\u001b\]|\u0007|[\u0080-\u009f]|\u001b\[2J|\u001b\[3J/;

/** What shows that the attack reached gatechat and was answered (so a check on its output can fail). */
const ARRIVED: Record<Attack, RegExp> = {
  escapes: /text[^]*tool/,
  'escape-headers': /headers/,
  'invalid-headers': /not valid HTTP/,
  'escape-error': /refused/,
  'escape-stream-error': /upstream failed/,
  'gzip-bomb': /over 64 MiB/,
  'keep-alive-forever': /gave up after 3 s \(--max-time\)/,
  'data-forever': /over 256 MiB|--max-time/,
  'tool-args-forever': /over 256 MiB|--max-time/,
  'not-sse': /not an event stream/,
  'broken-json': /stream damaged/,
  silent: /gave up after 3 s \(--max-time\)/,
};

/** Stdout piped, -v: what the terminal (stderr) shows of the attacks whose payload is the answer. */
const ARRIVED_ON_STDERR: Partial<Record<Attack, RegExp>> = { escapes: /thinking/, 'escape-headers': /x-request-id: req/ };

/** Attacks that never end by themselves: --max-time 3 ends them. */
const ENDLESS: ReadonlySet<Attack> = new Set(['keep-alive-forever', 'data-forever', 'tool-args-forever', 'silent']);

/**
 * Endless attacks end by --max-time 3; the others end by themselves (a gzip bomb at its limit, which
 * can take longer than 3 s on a loaded machine), with a generous --max-time as the test's own bound.
 */
function argsFor(attack: Attack, api: 'chat' | 'messages'): string[] {
  const maxTime = ENDLESS.has(attack) ? '3' : '45';
  return ['--base-url', gateway.base, '-m', attack, '--api', api, '--retries', '0', '--timeout', '5', '--max-time', maxTime, 'hi'];
}

function peakKiB(text: string): { peak: number; rest: string } {
  const match = /peak-rss-kib (\d+)\r?\n?/.exec(text);
  expect(match, text.slice(-2000)).not.toBeNull();
  return { peak: Number(match![1]), rest: text.slice(0, match!.index) + text.slice(match!.index + match![0].length) };
}

/** Every file gatechat wrote for this user (conversations, history, caches). */
function savedText(user: User): string {
  const parts: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else parts.push(readFileSync(path, 'latin1'));
    }
  };
  walk(user.dataDir);
  walk(user.configDir);
  return parts.join('\n');
}

function expectNoKey(where: string, text: string): void {
  for (const piece of KEY_PIECES) expect(text.includes(piece), `${where} holds ${piece}`).toBe(false);
}

const env = (user: User) => ({ ...user.env(), GATECHAT_API_KEY: KEY });

describe.concurrent.each(['chat', 'messages'] as const)('every attack on %s', (api) => {
  for (const attack of ATTACKS) {
    it(`${attack}, all on a terminal: no escape of the gateway's drawn, no key anywhere, under 400 MiB`, () => asUser(async (user) => {
      const result = await runInPty(argsFor(attack, api), { env: env(user), wrapper: TIME, timeoutMs: 60_000, columns: 100, rows: 30 });
      const { peak, rest } = peakKiB(result.raw);
      expect(rest).not.toMatch(/internal error/);
      expect(rest).toMatch(ARRIVED[attack]);
      expect(TERMINAL_ATTACK.test(rest), visible(rest).slice(0, 3000)).toBe(false);
      expectNoKey('the terminal', rest);
      expectNoKey('saved files', savedText(user));
      expect(peak).toBeLessThan(MAX_RSS_KIB);
    }), 90_000);

    it(`${attack}, stdout piped and stderr a terminal, -v: nothing drawn from the gateway, no key`, () => asUser(async (user) => {
      const out = join(user.home, 'out.txt');
      const result = await runInPty(['-v', ...argsFor(attack, api)], { env: env(user), wrapper: TIME, timeoutMs: 60_000, stdoutTo: out });
      const { peak, rest } = peakKiB(result.raw);
      expect(rest).not.toMatch(/internal error/);
      expect(rest).toMatch(ARRIVED_ON_STDERR[attack] ?? ARRIVED[attack]);
      expect(TERMINAL_ATTACK.test(rest), visible(rest).slice(0, 3000)).toBe(false);
      expectNoKey('the terminal', rest);
      expectNoKey('stdout', existsSync(out) ? readFileSync(out, 'latin1') : '');
      expectNoKey('saved files', savedText(user));
      expect(peak).toBeLessThan(MAX_RSS_KIB);
    }), 90_000);

    it(`${attack}, piped: no key on stderr or in saved files, under 400 MiB`, () => asUser(async (user) => {
      const result = await runCli(argsFor(attack, api), { env: env(user), wrapper: ['sh', '-c', 'exec "$@" > /dev/null', 'sh', ...TIME], timeoutMs: 60_000 });
      const { peak, rest } = peakKiB(result.stderr);
      expect(rest).not.toMatch(/internal error/);
      expect(result.code).not.toBe(1);
      if (attack !== 'escapes' && attack !== 'escape-headers') expect(rest).toMatch(ARRIVED[attack]);
      expectNoKey('stderr', rest);
      expectNoKey('saved files', savedText(user));
      expect(peak).toBeLessThan(MAX_RSS_KIB);
    }), 90_000);
  }
});
