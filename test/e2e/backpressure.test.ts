// Backpressure (issue 3, item 6): a 20 MiB answer (dev gateway model big-20) piped into a reader that
// is deliberately slow arrives whole and the run exits 0. The pipe renderer waits for 'drain'
// (src/render/output.ts), so gatechat reads the socket only as fast as stdout is consumed. Memory is
// measured by bench/memory.mjs, never asserted here (tests never assert on time or memory).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { bigTokens, joinTokens } from '../../src/gateway/text.js';
import { binPath } from '../helpers/cli.js';

const ctx = useGatewayAndUser({ userPer: 'file' });

interface SlowRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** How many times the reader held the pipe back (proof the reader really was slow). */
  pauses: number;
}

/**
 * Runs the binary with stdout read by a slow consumer: `chunk` bytes, then the pipe is paused until
 * the next `everyMs` tick. `stopAfter`: the reader goes away (closes its end) after that many bytes.
 */
function runWithSlowReader(args: string[], opts: { chunk: number; everyMs: number; stopAfter?: number }): Promise<SlowRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...ctx.user.env() };
  for (const key of Object.keys(env)) if (key.startsWith('GATECHAT_') && !/_(CONFIG|DATA)_DIR$/.test(key)) delete env[key];
  const child = spawn(process.execPath, [binPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let received = 0;
  let windowBytes = 0;
  let pauses = 0;
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => {
    out.push(data);
    received += data.length;
    windowBytes += data.length;
    if (opts.stopAfter !== undefined && received >= opts.stopAfter) {
      child.stdout.destroy();
      return;
    }
    if (windowBytes >= opts.chunk) {
      child.stdout.pause();
      pauses++;
    }
  });
  const tick = setInterval(() => {
    windowBytes = 0;
    if (!child.stdout.destroyed) child.stdout.resume();
  }, opts.everyMs);
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
  // A hang must fail the test, not stall the suite.
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(tick);
      clearTimeout(killer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr, pauses });
    });
  });
}

const MiB = 1024 * 1024;

describe('a slow reader on stdout', () => {
  for (const api of ['chat', 'messages'] as const) {
    it(`big-20 on ${api}: every byte arrives, in order, exit 0`, async () => {
      const result = await runWithSlowReader(['--base-url', `${ctx.gateway.url}/v1`, '-m', 'big-20', '--api', api, '--no-save', 'x'], {
        chunk: 128 * 1024,
        everyMs: 10,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout.length).toBe(20 * MiB + 1);
      // exactly the text the ctx.gateway sent, plus the final newline the pipe renderer adds
      expect(result.stdout.equals(Buffer.from(`${joinTokens(bigTokens(20))}\n`))).toBe(true);
      // the reader did hold gatechat back, many times over
      expect(result.pauses).toBeGreaterThan(100);
    });
  }

  // `gatechat … | head -c 100`: the next write fails with EPIPE; the run stops the answer and ends
  // quietly with exit 0, like other CLI tools (the reader chose to stop reading).
  it('a reader that goes away mid-answer ends the run quietly with exit 0', async () => {
    const result = await runWithSlowReader(['--base-url', `${ctx.gateway.url}/v1`, '-m', 'big-20', '--no-save', 'x'], {
      chunk: 64 * 1024,
      everyMs: 10,
      stopAfter: 64 * 1024,
    });
    expect(result.signal).not.toBe('SIGKILL');
    expect(result.stderr).not.toMatch(/^\s{4}at /m);
    expect(result.stderr).not.toMatch(/EPIPE|internal error/);
    expect(result.code).toBe(0);
  });
});
