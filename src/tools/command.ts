import { spawn } from 'node:child_process';
import type { ToolDefinition } from '../protocol/events.js';
import { commandOf } from './definitions.js';
import type { RunnableTool, ToolCallOptions, ToolOutcome, ToolRunner } from './runner.js';

// Command tools (SPEC §15): a `--tools` definition with `"x-command": "<shell command>"`. The call's
// arguments go to its stdin as JSON, its stdout is the result, a non-zero exit an error result with the
// status and the last 2 KiB of stderr.

const STDERR_TAIL = 2048;
const KILL_AFTER_MS = 2000;

/** Environment variables that hold credentials: tool processes never see them. */
export function toolEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (key === 'GATECHAT_API_KEY' || key === 'GATECHAT_API_KEY_CMD' || /^GATECHAT_.*(KEY|TOKEN|SECRET|PASSWORD)/.test(key)) continue;
    out[key] = value;
  }
  return out;
}

export function openCommandRunner(tools: ToolDefinition[]): ToolRunner | null {
  const commands = new Map<string, string>();
  const runnable: RunnableTool[] = [];
  for (const tool of tools) {
    const command = commandOf(tool);
    if (command === undefined) continue;
    commands.set(tool.function.name, command);
    runnable.push({
      name: tool.function.name,
      source: 'command',
      ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
      inputSchema: tool.function.parameters ?? { type: 'object', properties: {} },
    });
  }
  if (runnable.length === 0) return null;
  const running = new Set<() => void>();
  return {
    tools: () => runnable,
    call(name, args, options) {
      const command = commands.get(name);
      if (command === undefined) return Promise.resolve({ ok: false, text: `no command tool named ${name}` });
      return runCommand(command, args, options, running);
    },
    async close() {
      for (const stop of [...running]) stop();
    },
  };
}

function runCommand(command: string, args: unknown, { signal }: ToolCallOptions, running: Set<() => void>): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.env.SHELL || '/bin/sh', ['-c', command], {
      env: toolEnvironment(),
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so SIGTERM reaches whatever the shell started too.
      detached: process.platform !== 'win32',
    });
    const stdout: Buffer[] = [];
    let stderr = Buffer.alloc(0);
    let killTimer: NodeJS.Timeout | undefined;
    const signalGroup = (sig: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // Already gone.
      }
    };
    const stop = (): void => {
      signalGroup('SIGTERM');
      killTimer ??= setTimeout(() => signalGroup('SIGKILL'), KILL_AFTER_MS);
      killTimer.unref();
    };
    running.add(stop);
    const onAbort = (): void => stop();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) stop();
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL) stderr = stderr.subarray(stderr.length - STDERR_TAIL);
    });
    // A tool that does not read its stdin must not fail the call.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(args ?? {}));
    const finish = (outcome: ToolOutcome): void => {
      running.delete(stop);
      signal.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      resolve(outcome);
    };
    child.on('error', (error) => finish({ ok: false, text: `could not start: ${error.message}` }));
    child.on('close', (code, sig) => {
      const out = Buffer.concat(stdout).toString('utf8');
      if (code === 0) return finish({ ok: true, text: out });
      const status = code !== null ? `exit status ${code}` : `killed by ${sig}`;
      const tail = stderr.toString('utf8').trim();
      finish({ ok: false, text: `${status}${tail ? `\n${tail}` : ''}` });
    });
  });
}
