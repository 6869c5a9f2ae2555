import type { ToolDefinition } from '../protocol/events.js';
import { launchStdioServers } from './mcp/launch.js';
import type { McpServerConfig } from './mcp/servers.js';
import type { RunnableTool, ToolRunner } from './runner.js';

// Opens every runnable tool of a run: command tools from the --tools file and MCP servers. Loaded only
// through a dynamic import, so a run without tools loads none of it.

export interface ToolSources {
  /** --tools definitions: those with `x-command` become command tools. */
  definitions?: ToolDefinition[];
  /** MCP servers (config, profile, `--mcp-config`, `--mcp`), already merged: started here, all at once. */
  mcpServers?: McpServerConfig[];
  /** Where a server that fails to start is named, and (with `verbose`) servers' stderr goes. */
  stderr: NodeJS.WritableStream;
  verbose: boolean;
}

/** null when nothing is runnable. */
export async function loadToolRunner(sources: ToolSources): Promise<ToolRunner | null> {
  const runners: ToolRunner[] = [];
  if (sources.definitions?.length) {
    const { openCommandRunner } = await import('./command.js');
    const commands = openCommandRunner(sources.definitions);
    if (commands) runners.push(commands);
  }
  if (sources.mcpServers?.length) {
    const options = { stderr: sources.stderr, verbose: sources.verbose };
    // The processes first, the MCP client after: the servers boot while it loads (launch.ts).
    const launch = launchStdioServers(sources.mcpServers, options);
    const { openMcpRunner } = await import('./mcp/runner.js');
    runners.push(await openMcpRunner(sources.mcpServers, options, launch));
  }
  if (runners.length === 0) return null;
  return runners.length === 1 ? runners[0] : combineRunners(runners);
}

/** Several runners as one: a name belongs to the first runner that offers it. */
export function combineRunners(runners: ToolRunner[]): ToolRunner {
  const owner = new Map<string, ToolRunner>();
  const all: RunnableTool[] = [];
  for (const runner of runners) {
    for (const tool of runner.tools()) {
      if (owner.has(tool.name)) continue;
      owner.set(tool.name, runner);
      all.push(tool);
    }
  }
  return {
    tools: () => all,
    call: (name, args, options) => owner.get(name)?.call(name, args, options) ?? Promise.resolve({ ok: false, text: `no tool named ${name}` }),
    close: async () => {
      await Promise.all(runners.map((r) => r.close()));
    },
  };
}
