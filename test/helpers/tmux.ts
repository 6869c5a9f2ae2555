import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { binPath, repoRoot, shellQuoteArgs } from './cli.js';
import { useGatewayAndUser, type GatewayAndUser } from './dev-gateway.js';

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

  /** Types `text`, then Enter in a write of its own: text and Enter in one write would be one read. */
  submit(text: string): void {
    this.type(text);
    this.keys('Enter');
  }

  /** Key names as tmux knows them: Enter, Escape, C-c, C-d, Up, Tab … */
  keys(...names: string[]): void {
    this.tmux('send-keys', ...names);
  }

  /** Text pasted as a terminal pastes it (bracketed when the program asked for it). */
  paste(text: string): void {
    // `--`: a text that starts with '-' is not an option.
    this.tmux('set-buffer', '--', text);
    this.tmux('paste-buffer', '-p', '-d');
  }

  /**
   * Appends every byte the program writes to the terminal to `file` from now on (tmux pipe-pane):
   * the raw escape codes a screen capture hides. Returns a reader of what has been written so far.
   */
  record(file: string): () => string {
    this.tmux('pipe-pane', '-o', `cat >> ${shellQuote(file)}`);
    return () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
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
    existsSync(join(repoRoot, 'dist', 'cli.cjs')) ? null : 'the binary is not built (npm run build)',
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

export interface TerminalOptions {
  width?: number;
  height?: number;
  /** Set (or, with undefined, unset) on top of the user's dirs and an interactive xterm. */
  env?: Record<string, string | undefined>;
  /** Sends stdout to this file; the terminal keeps stderr. */
  stdoutTo?: string;
}

export interface Terminals {
  /** The built binary with `args` in a tmux window, run as the test's user; killed after the test. */
  launch(args: string[], options?: TerminalOptions): TmuxSession;
  /** A shell command line (for pipelines) in a tmux window, as launch() runs it. */
  open(command: string, options?: Omit<TerminalOptions, 'stdoutTo'>): TmuxSession;
}

/**
 * Tmux windows for a test file, each killed after its test. They run as `user()` (read when a window
 * opens) on what a person's terminal looks like: TERM=xterm-256color, no NO_COLOR, and no CI variables
 * (with those Ink appends instead of redrawing).
 */
export function useTerminals(user: () => { env(): Record<string, string> }): Terminals {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.kill();
  });
  const open = (command: string, options: Omit<TerminalOptions, 'stdoutTo'> = {}): TmuxSession => {
    const session = TmuxSession.start(command, {
      width: options.width ?? 100,
      height: options.height ?? 30,
      env: { ...user().env(), TERM: 'xterm-256color', CI: undefined, CONTINUOUS_INTEGRATION: undefined, NO_COLOR: undefined, ...options.env },
    });
    sessions.push(session);
    return session;
  };
  return {
    open,
    launch(args, { stdoutTo, ...options } = {}) {
      const command = shellQuoteArgs([process.execPath, binPath, ...args]);
      return open(stdoutTo === undefined ? command : `${command} > ${shellQuote(stdoutTo)}`, options);
    },
  };
}

/** useGatewayAndUser() and useTerminals() for that user: the dev gateway driven from real terminals. */
export function useGatewayAndTerminals(options: Parameters<typeof useGatewayAndUser>[0] = {}): GatewayAndUser & Terminals {
  const context = useGatewayAndUser(options);
  return Object.assign(context, useTerminals(() => context.user));
}
