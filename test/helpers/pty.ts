import { spawn } from 'node:child_process';
import { binPath, shellQuoteArgs } from './cli.js';

export interface PtyResult {
  code: number | null;
  /** Every byte the program wrote to the terminal (stdout and stderr share it), as written. */
  raw: string;
}

/**
 * Runs the built binary on a real pseudo-terminal (util-linux `script`), stdin/stdout/stderr all the
 * tty, and returns the raw bytes it wrote: what a terminal would have acted on, escape codes included.
 */
export function runInPty(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    columns?: number;
    rows?: number;
    timeoutMs?: number;
    /** stdout to this file instead: only stderr is the terminal (`raw` is what it drew). */
    stdoutTo?: string;
    /** A command the binary runs under on the terminal, e.g. `['/usr/bin/time', '-f', '%M']`. */
    wrapper?: string[];
    /** Typed on the terminal (a line answers a question the program asks). */
    input?: string;
  } = {},
): Promise<PtyResult> {
  const baseEnv: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(baseEnv)) if (key.startsWith('GATECHAT_') || key.startsWith('CI')) delete baseEnv[key];
  delete baseEnv.NO_COLOR;
  delete baseEnv.CONTINUOUS_INTEGRATION;
  const env: Record<string, string | undefined> = { TERM: 'xterm-256color', ...baseEnv, ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  // The window size must be set inside the pty before the program starts (script's own is 0×0).
  const redirect = options.stdoutTo === undefined ? '' : ` > ${shellQuoteArgs([options.stdoutTo])}`;
  const inner = `stty cols ${options.columns ?? 80} rows ${options.rows ?? 24}; exec ${shellQuoteArgs([...(options.wrapper ?? []), process.execPath, binPath, ...args])}${redirect}`;
  const child = spawn('script', ['-qfec', inner, '/dev/null'], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stdin.end(options.input);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, raw: Buffer.concat(out).toString('utf8') });
    });
  });
}

/** Escape sequences in raw terminal output, made readable for assertion messages. */
export function visible(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return raw.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
