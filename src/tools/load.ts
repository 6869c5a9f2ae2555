import type { ToolDefinition } from '../protocol/events.js';
import type { RunnableTool, ToolRunner } from './runner.js';

// Opens every runnable tool of a run: command tools from the --tools file and (once the MCP half is
// on main) MCP servers. Loaded only through a dynamic import, so a run without tools loads none of it.

export interface ToolSources {
  /** --tools definitions: those with `x-command` become command tools. */
  definitions?: ToolDefinition[];
  /**
   * MCP servers (`--mcp`, config, `--mcp-config`). MCP PLUG-IN POINT: when src/tools/mcp/runner.js is on
   * main, `openMcpRunner(servers, options)` from it is awaited here and combined below. Until then,
   * servers given here are refused with a clear error rather than silently ignored.
   */
  mcpServers?: unknown[];
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
    // MCP PLUG-IN POINT (issue 16 point 1, branch toolsmcp): const { openMcpRunner } = await import('./mcp/runner.js');
    // runners.push(await openMcpRunner(sources.mcpServers, options));
    throw new Error('MCP servers are not supported by this build yet');
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
