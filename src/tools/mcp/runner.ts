import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import { VERSION } from '../../version.js';
import type { RunnableTool, ToolCallOptions, ToolOutcome, ToolRunner } from '../runner.js';
import type { McpServerConfig } from './servers.js';
import { StdioMcpClient, type McpSession } from './jsonrpc-client.js';
import { launchStdioServers, type Launch } from './launch.js';
import { LaunchedStdioTransport } from './stdio-transport.js';
import { modelFacingNames } from './tool-names.js';
import { timeout } from './timeout.js';

// MCP servers as one ToolRunner (SPEC §15 "Servers' lives"): all started at once, each given 10 s; one
// that fails is named in one stderr line and left out; every one stopped on every way out — close()
// on the normal paths, and launch.ts's synchronous kill of each server's process tree when the process
// exits without it (a signal, an exit from deep inside): no orphan is left either way.

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

/** The loop bounds a call itself (--tool-timeout through the signal); the clients' own 60 s must not. */
const NO_CLIENT_TIMEOUT = 2 ** 31 - 1;
/** How much of a server's reason for not starting is shown. */
const MAX_REASON_CHARS = 200;

interface Connection {
  server: McpServerConfig;
  /** Our JSON-RPC client for a stdio server (no SDK runtime), the SDK's Client for one at a URL. */
  client: McpSession;
  transport: Transport;
  /** stdio only */
  pid: number | null;
  tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown>; annotations?: RunnableTool['annotations'] }>;
}

async function start(server: McpServerConfig, options: McpRunnerOptions, launch: Launch): Promise<Connection> {
  const ms = options.startTimeoutMs ?? 10_000;
  // One bound for the answer and every page of the tool list together (a page each was endless for a
  // server whose pages never end).
  const deadline = Date.now() + ms;
  const unfinishedList = `its tools/list did not end within ${ms / 1000} s`;
  // The cursors of the pages asked for: a server that names one it gave already would be asked for it for
  // ever, as it was with the SDK's client.
  const cursors = new Set<string>();
  const launched = launch.servers.get(server.name);
  let pid: number | null = null;
  let client: McpSession | undefined;
  let transport: Transport | undefined;
  try {
    if (!launched) {
      // Loaded only for a URL server: the SDK's Client with its zod schemas, and the HTTP transports (an
      // EventSource, OAuth's PKCE), which a stdio-only run never needs.
      const { connectHttp } = await import('./http-connect.js');
      ({ client, transport } = await connectHttp(server, ms));
    } else {
      const stdio = new LaunchedStdioTransport(launched);
      pid = stdio.pid;
      transport = stdio;
      const stdioClient = new StdioMcpClient({ name: 'gatechat', version: VERSION });
      client = stdioClient;
      await timeout(stdioClient.connect(stdio, { timeout: ms }), ms, 'starting');
    }
    const tools: Connection['tools'] = [];
    let cursor: string | undefined;
    do {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(unfinishedList);
      const page = await timeout(client.listTools(cursor ? { cursor } : undefined, { timeout: left }), left, 'listing its tools');
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema as Record<string, unknown>,
          annotations: tool.annotations ? { readOnlyHint: tool.annotations.readOnlyHint, destructiveHint: tool.annotations.destructiveHint, title: tool.annotations.title } : undefined,
        });
      }
      cursor = page.nextCursor;
      if (cursor && cursors.has(cursor)) throw new Error(`its tools/list repeated the cursor ${JSON.stringify(cursor.length > 60 ? `${cursor.slice(0, 60)}…` : cursor)}`);
      if (cursor) cursors.add(cursor);
    } while (cursor);
    return { server, client, transport, pid, tools };
  } catch (error) {
    // Left out, so stopped now (a stdio server that failed to answer, or to list its tools).
    if (client && transport) await stopConnection({ client, transport, pid }, launch);
    const tail = launched?.stderrTail().trim() ?? '';
    // One short line: the text is the server's (an error's message, a version it sent) and would reach
    // stderr and the run's failures whole, however long the server made it.
    const line = (error as Error).message.split('\n')[0] ?? String(error);
    const message = line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS)}…` : line;
    // Time that ran out after the first page is the list's, however quickly each page came.
    const reason = /Request timed out|took longer than/.test(message) ? (cursors.size > 0 ? unfinishedList : `no answer within ${ms / 1000} s`) : message;
    throw Object.assign(new Error(reason), { stderrTail: tail });
  }
}

async function stopConnection(connection: Pick<Connection, 'client' | 'transport' | 'pid'>, launch: Launch): Promise<void> {
  // The transport closes stdin, then SIGTERM and SIGKILL 2 s apart; what the server itself started is found by its mark.
  await connection.client.close().catch(() => connection.transport.close().catch(() => {}));
  if (connection.pid !== null) launch.stop(connection.pid);
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

/**
 * Connects to every server at once and lists its tools. `launch` holds the stdio servers' processes when
 * the caller spawned them before loading this module (load.ts, the tools command); else they start here.
 */
export async function openMcpRunner(servers: McpServerConfig[], options: McpRunnerOptions, launch: Launch = launchStdioServers(servers, options)): Promise<McpRunner> {
  const settled = await Promise.allSettled(servers.map((server) => start(server, options, launch)));
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
          // The client sends notifications/cancelled to the server when the signal aborts.
          { signal: callOptions.signal, timeout: NO_CLIENT_TIMEOUT },
        );
        return { ok: result.isError !== true, text: resultText(result.content, result.structuredContent) };
      } catch (error) {
        const message = (error as Error).message;
        return { ok: false, text: callOptions.signal.aborted ? `cancelled (${message})` : `MCP server ${target.connection.server.name}: ${message}` };
      }
    },
    close() {
      closed ??= Promise.all(connections.map((c) => stopConnection(c, launch))).then(() => launch.release());
      return closed;
    },
  };
}
