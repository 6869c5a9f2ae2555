import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

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
    // No user config (-f /dev/null); remain-on-exit, set in the same command queue as the start,
    // keeps the pane after the program ends so a test can see that it ended and how.
    execFileSync('tmux', [
      '-L', session.socket, '-f', '/dev/null',
      'new-session', '-d', '-x', String(options.width ?? 100), '-y', String(options.height ?? 30), `env ${env} ${command}`,
      ';', 'set-option', '-g', 'remain-on-exit', 'on',
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

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J');
  }

  paneDead(): boolean {
    try {
      return this.tmux('display-message', '-p', '#{pane_dead}').trim() === '1';
    } catch {
      return true;
    }
  }

  panePid(): number {
    return Number(this.tmux('display-message', '-p', '#{pane_pid}').trim());
  }

  exitStatus(): number | null {
    const status = this.tmux('display-message', '-p', '#{pane_dead_status}').trim();
    if (status !== '') return Number(status);
    // Some tmux versions leave the format empty but print the status on the dead pane.
    const shown = /Pane is dead \(status (\d+)/.exec(this.screen());
    return shown ? Number(shown[1]) : null;
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
