import { checkStoredValue, type ConfigFile } from '../config/keys.js';
import { selectProfile } from '../config/settings.js';
import { openConfigStore } from '../config/store.js';
import type { ToolDefinition } from '../protocol/events.js';
import { hasCommandTools } from '../tools/definitions.js';
import { hasMcpServers, mcpServersOf, serverAllowPatterns, type McpSources } from '../tools/mcp/sources.js';
import type { ToolRunner } from '../tools/runner.js';
import type { McpFlags, ToolLoopFlags } from './flags.js';
import { ConnectionPool, type Connection } from '../transport/http.js';

// The runnable tools of one run (SPEC §15): command tools from --tools and the MCP servers of the config,
// the profile, --mcp-config and --mcp. Decided on the start-up path without loading the tools code; a
// run with nothing runnable starts nothing.

export interface RunTools {
  runner: ToolRunner;
  /** The loop's flags with each MCP server's own `allow` added to --allow. */
  flags: ToolLoopFlags;
  /** The MCP servers' tools as definitions for the request (command tools are in --tools already). */
  offered: ToolDefinition[];
}

export interface RunToolsInput {
  definitions?: ToolDefinition[];
  mcp: McpFlags;
  /** --profile as given (the environment and default-profile are consulted here). */
  profile?: string;
  flags: ToolLoopFlags;
  stderr: NodeJS.WritableStream;
  verbose: boolean;
  /**
   * The session's connection: a loop makes a model request per step, so while tools run its requests
   * share one keep-alive pool (closed with the runner) instead of connecting anew each time.
   */
  conn?: Connection;
}

export async function openRunTools(input: RunToolsInput): Promise<RunTools | null> {
  const file = openConfigStore().snapshot();
  const sources: McpSources = { file, profile: selectProfile(input.profile, process.env, file), specs: input.mcp.specs, configFile: input.mcp.configFile, template: input.mcp.template };
  const withMcp = hasMcpServers(sources);
  if (!withMcp && !hasCommandTools(input.definitions)) return null;
  const servers = withMcp ? mcpServersOf(sources) : [];
  const { loadToolRunner } = await import('../tools/load.js');
  const runner = await loadToolRunner({ definitions: input.definitions, mcpServers: servers, stderr: input.stderr, verbose: input.verbose });
  if (!runner) return null;
  const runnerWithPool = input.conn && !input.conn.pool ? sharingConnection(runner, input.conn) : runner;
  const offered: ToolDefinition[] = runner
    .tools()
    .filter((tool) => tool.source !== 'command')
    .map((tool) => ({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema } }));
  const allow = [...input.flags.allow, ...configAllowPatterns(file, sources.profile), ...serverAllowPatterns(servers)];
  return { runner: runnerWithPool, flags: { ...input.flags, allow }, offered };
}

function sharingConnection(runner: ToolRunner, conn: Connection): ToolRunner {
  const pool = new ConnectionPool(conn);
  conn.pool = pool;
  return {
    tools: () => runner.tools(),
    call: (name, args, options) => runner.call(name, args, options),
    async close() {
      conn.pool = undefined;
      pool.close();
      await runner.close();
    },
  };
}

/** The config's `allow` (the profile's replaces the top level's, like every key): globs over tool names. */
export function configAllowPatterns(file: ConfigFile, profile: string | undefined): string[] {
  const stored = (profile === undefined ? undefined : file.profiles?.[profile]?.allow) ?? file.allow;
  if (stored === undefined) return [];
  return (checkStoredValue('allow', stored, 'config allow') as string).split(',');
}
