import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { repoRoot } from './cli.js';

/**
 * Drives a real pseudo-terminal through tmux: a private server socket per session, keys sent as a
 * person types them, the screen read back with capture-pane. Always call kill() (afterAll).
 */
export class TmuxSession {
  readonly socket = `gatechat-test-${process.pid}-${randomBytes(4).toString('hex')}`;

  private constructor() {}

  /** Starts `command` (a shell command line) in a detached width×height window. */
  static start(command: string, options: { width?: number; height?: number; env?: Record<string, string | undefined> } = {}): TmuxSession {
    const session = new TmuxSession();
    // env(1) takes its -u options before the assignments.
    const entries = Object.entries(options.env ?? {});
    const env = [
      ...entries.filter(([, v]) => v === undefined).map(([k]) => `-u ${k}`),
      ...entries.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${shellQuote(v!)}`),
    ].join(' ');
    // No user config (-f /dev/null). The shell prints the exit status and keeps the pane open, so a
    // test reads how the program ended from the screen (tmux's own dead-pane status varies by version).
    const script = `env ${env} ${command}; echo "${EXIT_MARK}$?]"; exec sleep 3600`;
    execFileSync('tmux', [
      '-L', session.socket, '-f', '/dev/null',
      'new-session', '-d', '-x', String(options.width ?? 100), '-y', String(options.height ?? 30), script,
    ], { stdio: 'ignore' });
    return session;
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** Literal text (no key-name lookup). */
  type(text: string): void {
    this.tmux('send-keys', '-l', text);
  }

  /** Key names as tmux knows them: Enter, Escape, C-c, C-d, Up, Tab … */
  keys(...names: string[]): void {
    this.tmux('send-keys', ...names);
  }

  /** Text pasted as a terminal pastes it (bracketed when the program asked for it). */
  paste(text: string): void {
    this.tmux('set-buffer', text);
    this.tmux('paste-buffer', '-p', '-d');
  }

  /**
   * Appends every byte the program writes to the terminal to `file` from now on (tmux pipe-pane):
   * the raw escape codes a screen capture hides.
   */
  record(file: string): void {
    this.tmux('pipe-pane', '-o', `cat >> ${shellQuote(file)}`);
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J');
  }

  panePid(): number {
    return Number(this.tmux('display-message', '-p', '#{pane_pid}').trim());
  }

  /** The program's exit status once it has ended, else null. */
  exitStatus(): number | null {
    const shown = new RegExp(`${EXIT_MARK.replace(/[[\]]/g, '\\$&')}(\\d+)\\]`).exec(this.screen());
    return shown ? Number(shown[1]) : null;
  }

  /** Waits until the program has ended; returns its exit status. */
  async waitForExit(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const status = this.exitStatus();
      if (status !== null) return status;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for the program to exit; screen:\n${this.screen()}`);
  }

  resize(width: number, height: number): void {
    this.tmux('resize-window', '-x', String(width), '-y', String(height));
  }

  /** Polls the screen until `test` passes; the error shows the last screen. */
  async waitFor(test: (screen: string) => boolean, what: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < deadline) {
      screen = this.screen();
      if (test(screen)) return screen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${screen}`);
  }

  async waitForText(text: string, timeoutMs?: number): Promise<string> {
    return this.waitFor((s) => s.includes(text), JSON.stringify(text), timeoutMs);
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // Already gone.
    }
  }
}

const EXIT_MARK = '[gatechat-test exited ';

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Set to 1 to skip the pseudo-terminal tests knowingly where tmux cannot be installed (never in CI). */
export const SKIP_PTY_VARIABLE = 'GATECHAT_TEST_SKIP_PTY';

/**
 * describe() for tests that drive the built binary in tmux. A missing tmux or an unbuilt binary is
 * never a silent skip: the block then holds one failing test that says what to install. Only with
 * GATECHAT_TEST_SKIP_PTY=1 (and not in CI) is it skipped, and the reason is in the skipped block's
 * name, so the report shows it.
 */
export function describeInTerminal(name: string, body: () => void): void {
  const missing = [
    tmuxAvailable() ? null : 'tmux is not installed (apt-get install tmux / brew install tmux)',
    existsSync(join(repoRoot, 'dist', 'cli.js')) ? null : 'the binary is not built (npm run build)',
  ].filter((reason): reason is string => reason !== null);
  if (missing.length === 0) {
    describe(name, body);
  } else if (process.env[SKIP_PTY_VARIABLE] === '1' && !process.env.CI) {
    const reason = `skipped by ${SKIP_PTY_VARIABLE}=1: ${missing.join('; ')}`;
    // The summary counts skipped tests without names: say it where it cannot be missed.
    console.warn(`${name}: ${reason}`);
    describe.skip(`${name} [${reason}]`, body);
  } else {
    describe(name, () => {
      it('runs in a pseudo-terminal', () => {
        throw new Error(`${missing.join('; ')}. Install it, or set ${SKIP_PTY_VARIABLE}=1 to skip these tests knowingly.`);
      });
    });
  }
}
