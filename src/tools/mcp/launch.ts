import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import spawn from 'cross-spawn';
import { stopProcessTree, type RunMark } from '../../config/process-tree.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import type { McpServerConfig } from './servers.js';

// Starting the stdio servers' processes, before the MCP client code is loaded (SPEC §15 "Servers' lives"):
// spawned first, the servers boot while gatechat loads runner.ts and its JSON-RPC client, and runner.ts
// hands each process to that client through stdio-transport.ts. No SDK import here, so this module stays
// small.
//
// From the spawn on, every process is stopped on every way out: runner.ts's close() on the normal
// paths, and here a synchronous kill of each server's process tree when gatechat exits without it (a
// signal, an exit from deep inside): no orphan is left either way.

/** Variables no tool process gets: gatechat's key (SPEC §15). */
const WITHHELD_ENV = ['GATECHAT_API_KEY'];
/** Set in every stdio server's environment, so its whole process tree can be found and stopped. */
const RUN_MARK_VARIABLE = 'GATECHAT_MCP_RUN';
const STDERR_TAIL_BYTES = 2048;
/**
 * What a server inherits of gatechat's environment, as the SDK's StdioClientTransport gives it
 * (its DEFAULT_INHERITED_ENV_VARS, which a test compares with this list); the server's own `env` is added.
 */
export const INHERITED_ENV =
  process.platform === 'win32'
    ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

export interface LaunchOptions {
  /** Where, with `verbose`, the servers' own stderr goes (each line marked with the server's name). */
  stderr: NodeJS.WritableStream;
  verbose: boolean;
}

/** One stdio server's process, spawned and not yet connected. */
export interface LaunchedServer {
  child: ChildProcess;
  mark: RunMark;
  /** Resolves once the process runs; rejects with the spawn error (a missing program: ENOENT). */
  spawned: Promise<void>;
  /** The process ended and its pipes closed, perhaps before the transport was attached. */
  closed: boolean;
  /** The last 2 KiB of what it wrote to stderr. */
  stderrTail(): string;
}

export interface Launch {
  /** By server name: the stdio servers only (a URL server has no process). */
  servers: Map<string, LaunchedServer>;
  /** Stops `pid`'s process tree (its mark finds what it started) and forgets it. */
  stop(pid: number): void;
  /** Every server stopped: the exit and signal handlers go. */
  release(): void;
}

function childEnvironment(server: McpServerConfig, mark: RunMark): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    // The SDK's rule too: a shell function exported in the environment is not passed on.
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  Object.assign(env, server.env, { [mark.name]: mark.value });
  for (const name of WITHHELD_ENV) delete env[name];
  return env;
}

function launchOne(server: McpServerConfig, options: LaunchOptions): LaunchedServer {
  const mark = { name: RUN_MARK_VARIABLE, value: randomBytes(12).toString('hex') };
  const child = spawn(server.command!, server.args ?? [], {
    env: childEnvironment(server, mark),
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
    windowsHide: process.platform === 'win32',
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  spawned.catch(() => {}); // reported when the transport starts
  let tail = '';
  const launched: LaunchedServer = { child, mark, spawned, closed: false, stderrTail: () => tail };
  child.once('close', () => (launched.closed = true));
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-STDERR_TAIL_BYTES);
    if (options.verbose) options.stderr.write(sanitizeForTerminal(text).replace(/^(?=.)/gm, `[${server.name}] `));
  });
  return launched;
}

/** Spawns every stdio server of `servers` at once; URL servers are left to the runner. */
export function launchStdioServers(servers: McpServerConfig[], options: LaunchOptions): Launch {
  const live = new Map<number, RunMark>();
  // Last resort: the process is exiting without close() (SIGTERM handled by an exit, an error deep in).
  const killOnExit = () => {
    for (const [pid, mark] of live) stopProcessTree(pid, mark);
  };
  process.on('exit', killOnExit);
  // A signal nobody else handles would end the process without 'exit': stop the servers, then die of it.
  // Where a command handles the signal itself (the one-shot's Ctrl-C), it exits through 'exit' instead.
  const onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return;
    killOnExit();
    process.off(signal, onSignal);
    process.kill(process.pid, signal);
  };
  const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of SIGNALS) process.on(signal, onSignal);

  const launched = new Map<string, LaunchedServer>();
  for (const server of servers) {
    if (server.url !== undefined) continue;
    const one = launchOne(server, options);
    // Known at once when the spawn worked: recorded before anything else can run.
    if (one.child.pid !== undefined) live.set(one.child.pid, one.mark);
    launched.set(server.name, one);
  }
  return {
    servers: launched,
    stop(pid) {
      const mark = live.get(pid);
      if (mark === undefined) return;
      stopProcessTree(pid, mark);
      live.delete(pid);
    },
    release() {
      process.off('exit', killOnExit);
      for (const signal of SIGNALS) process.off(signal, onSignal);
    },
  };
}
