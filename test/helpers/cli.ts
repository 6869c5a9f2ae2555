import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '..', '..');
export const binPath = join(repoRoot, 'bin', 'gatechat.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; `'open'`: left open for the test to write (onSpawn). */
  stdin?: string | Buffer | 'open';
  /** Kill after this many ms (the test then sees signal SIGKILL): a hang must fail, not stall the suite. */
  timeoutMs?: number;
  home?: string;
  /** The working directory (default: the test runner's). */
  cwd?: string;
  /** Called once the process is running (e.g. to send it a signal). */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  /** Run as this user and group (a test running as root checking what another user may not do). */
  uid?: number;
  gid?: number;
  /** A command the binary runs under, e.g. `['prlimit', '--fsize=4096', '--']`. */
  wrapper?: string[];
}

/** An isolated user: its own HOME, config dir and data dir, removed by cleanup(). */
export function makeUserDirs() {
  const home = mkdtempSync(join(tmpdir(), 'gatechat-test-'));
  return {
    home,
    configDir: join(home, 'config'),
    dataDir: join(home, 'data'),
    env(): Record<string, string> {
      return { HOME: home, GATECHAT_CONFIG_DIR: join(home, 'config'), GATECHAT_DATA_DIR: join(home, 'data') };
    },
    cleanup() {
      // A gatechat still exiting (a chat in a tmux pane that was just killed) may be writing its code cache
      // here. Removing a temp dir is not what a test checks: retried, and if that process is still at it,
      // tried again later in the background instead of failing the test (seen in CI under load).
      try {
        rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      } catch {
        setTimeout(() => {
          try {
            rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
          } catch {
            // Left in the temp dir: the system's cleaner of /tmp will have it.
          }
        }, 5000).unref();
      }
    },
  };
}

/** Runs the built binary as a user would: real process, real pipes, no TTY. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const baseEnv: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(baseEnv)) if (key.startsWith('GATECHAT_')) delete baseEnv[key];
  delete baseEnv.NO_COLOR;
  // A proxy in the developer's or CI's environment must not reroute loopback tests; proxy tests set their own.
  for (const key of Object.keys(baseEnv)) if (/^(https?|no|all)_proxy$/i.test(key)) delete baseEnv[key];
  const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
  const child = spawn(command!, [...prefix, binPath, ...args], {
    env: { ...baseEnv, ...options.env } as NodeJS.ProcessEnv,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {}),
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on('error', () => {});
  if (options.stdin === 'open') {
    // The test writes to child.stdin itself (onSpawn) and ends it.
  } else if (options.stdin !== undefined) child.stdin.end(options.stdin);
  else child.stdin.end();
  options.onSpawn?.(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

/** A command line for sh with every argument single-quoted. */
export function shellQuoteArgs(args: string[]): string {
  return args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
}
