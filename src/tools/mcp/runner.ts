import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { stopProcessTree, type RunMark } from '../../config/process-tree.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import type { RunnableTool, ToolCallOptions, ToolOutcome, ToolRunner } from '../runner.js';
import type { McpServerConfig } from './servers.js';
import { newClient } from './client.js';
import { modelFacingNames } from './tool-names.js';
import { timeout } from './timeout.js';

// MCP servers as one ToolRunner (SPEC §15 "Servers' lives"): all started at once, each given 10 s; one
// that fails is named in one stderr line and left out; every one stopped on every way out — close()
// on the normal paths, and a synchronous kill of each server's process tree when the process exits
// without it (a signal, an exit from deep inside): no orphan is left either way.

export interface McpRunnerOptions {
  /** Where the failure lines (and, with `verbose`, the servers' own stderr) go. */
  stderr: NodeJS.WritableStream;
  verbose: boolean;
  /** Per server, for the connection and its tool list. */
  startTimeoutMs?: number;
}

export interface McpFailure {
  server: string;
  reason: string;
}

export interface McpRunner extends ToolRunner {
  failures: McpFailure[];
}

/** Variables no tool process gets: gatechat's key (SPEC §15). */
const WITHHELD_ENV = ['GATECHAT_API_KEY'];
/** Set in every stdio server's environment, so its whole process tree can be found and stopped. */
const RUN_MARK_VARIABLE = 'GATECHAT_MCP_RUN';
const STDERR_TAIL_BYTES = 2048;
/** The loop bounds a call itself (--tool-timeout through the signal); the SDK's own 60 s must not. */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

interface Connection {
  server: McpServerConfig;
  client: Client;
  transport: Transport;
  /** stdio only */
  pid: number | null;
  mark: RunMark | null;
  tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown>; annotations?: RunnableTool['annotations'] }>;
}

function childEnvironment(server: McpServerConfig, mark: RunMark): Record<string, string> {
  const env = { ...server.env, [mark.name]: mark.value };
  for (const name of WITHHELD_ENV) delete env[name];
  return env;
}

function lastBytes(text: string): string {
  return text.length > STDERR_TAIL_BYTES ? text.slice(-STDERR_TAIL_BYTES) : text;
}

async function start(server: McpServerConfig, options: McpRunnerOptions, liveMarks: Map<number, RunMark>): Promise<Connection> {
  const ms = options.startTimeoutMs ?? 10_000;
  let stderrText = '';
  let pid: number | null = null;
  let mark: RunMark | null = null;
  let client: Client;
  let transport: Transport;
  try {
    if (server.url !== undefined) {
      // Loaded only for a URL server: the HTTP transports (and what they bring: an EventSource, OAuth's
      // PKCE) are a third of this module's start-up, which every stdio-only run would pay.
      const { connectHttp } = await import('./http-connect.js');
      ({ client, transport } = await connectHttp(server, ms));
    } else {
      mark = { name: RUN_MARK_VARIABLE, value: randomBytes(12).toString('hex') };
      const stdio = new StdioClientTransport({ command: server.command!, args: server.args ?? [], env: childEnvironment(server, mark), stderr: 'pipe' });
      stdio.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        stderrText = lastBytes(stderrText + text);
        if (options.verbose) options.stderr.write(sanitizeForTerminal(text).replace(/^(?=.)/gm, `[${server.name}] `));
      });
      transport = stdio;
      client = newClient();
      const connecting = client.connect(stdio, { timeout: ms });
      // The pid is known once spawned: recorded as soon as it is, so an exit before the handshake ends stops it too.
      const record = () => {
        pid = stdio.pid ?? pid;
        if (pid !== null) liveMarks.set(pid, mark!);
      };
      setImmediate(record);
      try {
        await timeout(connecting, ms, 'starting');
        record();
      } catch (error) {
        record();
        await stopConnection({ client, transport, pid, mark }, liveMarks);
        throw error;
      }
    }
    const tools: Connection['tools'] = [];
    let cursor: string | undefined;
    do {
      const page = await timeout(client.listTools(cursor ? { cursor } : undefined, { timeout: ms }), ms, 'listing its tools');
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema as Record<string, unknown>,
          annotations: tool.annotations ? { readOnlyHint: tool.annotations.readOnlyHint, destructiveHint: tool.annotations.destructiveHint, title: tool.annotations.title } : undefined,
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    return { server, client, transport, pid, mark, tools };
  } catch (error) {
    const tail = stderrText.trim();
    const message = (error as Error).message.split('\n')[0] ?? String(error);
    const reason = /Request timed out|took longer than/.test(message) ? `no answer within ${ms / 1000} s` : message;
    throw Object.assign(new Error(reason), { stderrTail: tail });
  }
}

async function stopConnection(connection: Pick<Connection, 'client' | 'transport' | 'pid' | 'mark'>, liveMarks: Map<number, RunMark>): Promise<void> {
  // The SDK closes stdin, then SIGTERM and SIGKILL 2 s apart; what the server itself started is found by its mark.
  await connection.client.close().catch(() => connection.transport.close().catch(() => {}));
  if (connection.pid !== null && connection.mark !== null) {
    stopProcessTree(connection.pid, connection.mark);
    liveMarks.delete(connection.pid);
  }
}

/** The text the model gets from an MCP tool result. */
export function resultText(content: unknown, structured: unknown): string {
  const parts: string[] = [];
  for (const item of Array.isArray(content) ? content : []) {
    const part = item as Record<string, unknown>;
    if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else if (part.type === 'image' || part.type === 'audio') parts.push(`[${part.type} ${String(part.mimeType ?? '')}, ${Math.floor((String(part.data ?? '').length * 3) / 4)} bytes]`);
    else if (part.type === 'resource') {
      const resource = (part.resource ?? {}) as Record<string, unknown>;
      parts.push(typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri ?? '')}]`);
    } else if (part.type === 'resource_link') parts.push(`[resource ${String(part.uri ?? '')}]`);
  }
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured));
  return parts.join('\n');
}

export async function openMcpRunner(servers: McpServerConfig[], options: McpRunnerOptions): Promise<McpRunner> {
  const liveMarks = new Map<number, RunMark>();
  // Last resort: the process is exiting without close() (SIGTERM handled by an exit, an error deep in).
  const killOnExit = () => {
    for (const [pid, mark] of liveMarks) stopProcessTree(pid, mark);
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

  const settled = await Promise.allSettled(servers.map((server) => start(server, options, liveMarks)));
  const connections: Connection[] = [];
  const failures: McpFailure[] = [];
  settled.forEach((outcome, i) => {
    const server = servers[i]!;
    if (outcome.status === 'fulfilled') {
      connections.push(outcome.value);
      return;
    }
    const error = outcome.reason as Error & { stderrTail?: string };
    failures.push({ server: server.name, reason: error.message });
    options.stderr.write(sanitizeForTerminal(`gatechat: MCP server ${server.name} did not start (${error.message}); its tools are left out${options.verbose ? '' : ' (-v shows its stderr)'}\n`));
    if (options.verbose && error.stderrTail) options.stderr.write(`${sanitizeForTerminal(error.stderrTail).replace(/^/gm, `[${server.name}] `)}\n`);
  });

  const names = modelFacingNames(connections.flatMap((c) => c.tools.map((t) => ({ server: c.server.name, tool: t.name }))));
  const byName = new Map<string, { connection: Connection; tool: Connection['tools'][number] }>();
  const tools: RunnableTool[] = [];
  let index = 0;
  for (const connection of connections) {
    for (const tool of connection.tools) {
      const name = names[index++]!;
      byName.set(name, { connection, tool });
      tools.push({ name, source: connection.server.name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations });
    }
  }

  let closed: Promise<void> | null = null;
  return {
    failures,
    tools: () => tools,
    async call(name: string, args: unknown, callOptions: ToolCallOptions): Promise<ToolOutcome> {
      const target = byName.get(name);
      if (!target) return { ok: false, text: `no tool named ${name}` };
      try {
        const result = await target.connection.client.callTool(
          { name: target.tool.name, arguments: (args ?? {}) as Record<string, unknown> },
          undefined,
          // The SDK sends notifications/cancelled to the server when the signal aborts.
          { signal: callOptions.signal, timeout: NO_SDK_TIMEOUT },
        );
        return { ok: result.isError !== true, text: resultText(result.content, result.structuredContent) };
      } catch (error) {
        const message = (error as Error).message;
        return { ok: false, text: callOptions.signal.aborted ? `cancelled (${message})` : `MCP server ${target.connection.server.name}: ${message}` };
      }
    },
    close() {
      closed ??= Promise.all(connections.map((c) => stopConnection(c, liveMarks))).then(() => {
        process.off('exit', killOnExit);
        for (const signal of SIGNALS) process.off(signal, onSignal);
      });
      return closed;
    },
  };
}
