import { selectProfile } from '../../config/settings.js';
import { openConfigStore } from '../../config/store.js';
import { ExitCode } from '../../exit-codes.js';
import type { ToolDefinition } from '../../protocol/events.js';
import { jsonText } from '../../render/json-text.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import { commandOf } from '../../tools/definitions.js';
import { hasMcpServers, mcpServersOf, serverAllowPatterns } from '../../tools/mcp/sources.js';
import { isAllowed } from '../../tools/policy.js';
import type { RunnableTool } from '../../tools/runner.js';
import type { Io } from '../context.js';
import { configAllowPatterns } from '../run-tools.js';
import type { McpFlags } from '../flags.js';

// `gatechat tools [--json]` (SPEC §15 "Listing"): starts the run's MCP servers, lists every tool the
// model would see (model-facing name, where it runs, the first line of its description, whether it runs
// without asking), and stops them again.

export interface ToolsCommandOptions {
  mcp: McpFlags;
  definitions?: ToolDefinition[];
  allow: string[];
  profile?: string;
  json: boolean;
  verbose: boolean;
}

interface Listed {
  name: string;
  source: string;
  description: string;
  allowed: boolean;
  annotations?: RunnableTool['annotations'];
}

function firstLine(text: string | undefined): string {
  return (text ?? '').trim().split('\n')[0] ?? '';
}

export async function runToolsCommand(options: ToolsCommandOptions, io: Io): Promise<number> {
  const file = openConfigStore().snapshot();
  const profile = selectProfile(options.profile, process.env, file);
  const sources = { file, profile, specs: options.mcp.specs, configFile: options.mcp.configFile };
  const servers = hasMcpServers(sources) ? mcpServersOf(sources) : [];
  const allow = [...options.allow, ...configAllowPatterns(file, profile), ...serverAllowPatterns(servers)];
  const allowed = (name: string) => isAllowed(name, allow);

  const listed: Listed[] = [];
  for (const definition of options.definitions ?? []) {
    const runnable = commandOf(definition) !== undefined;
    const name = definition.function.name;
    listed.push({ name, source: runnable ? 'command' : 'definition only', description: firstLine(definition.function.description), allowed: runnable && allowed(name) });
  }
  let failed = 0;
  if (servers.length > 0) {
    const mcpOptions = { stderr: io.stderr, verbose: options.verbose };
    // The processes first, the MCP client after: the servers boot while it loads (launch.ts).
    const { launchStdioServers } = await import('../../tools/mcp/launch.js');
    const launch = launchStdioServers(servers, mcpOptions);
    const { openMcpRunner } = await import('../../tools/mcp/runner.js');
    const runner = await openMcpRunner(servers, mcpOptions, launch);
    try {
      failed = runner.failures.length;
      for (const tool of runner.tools()) {
        listed.push({ name: tool.name, source: tool.source, description: firstLine(tool.description), allowed: allowed(tool.name), annotations: tool.annotations });
      }
    } finally {
      await runner.close();
    }
  }

  if (options.json) {
    io.stdout.write(`${jsonText(listed)}\n`);
  } else if (io.stdout.isTTY) {
    const width = (key: 'name' | 'source') => Math.max(key.length, ...listed.map((t) => t[key].length));
    const [nameWidth, sourceWidth] = [width('name'), width('source')];
    const row = (name: string, source: string, allowed: string, description: string) =>
      `${name.padEnd(nameWidth)}  ${source.padEnd(sourceWidth)}  ${allowed.padEnd(7)}  ${description}`.trimEnd();
    io.stdout.write(`${row('NAME', 'SOURCE', 'ALLOWED', 'DESCRIPTION')}\n`);
    // One row a tool: a description longer than the window is cut, not wrapped under the other columns.
    const columns = io.stdout.columns || 80;
    const fit = (line: string) => ([...line].length > columns ? `${[...line].slice(0, columns - 1).join('')}…` : line);
    for (const tool of listed) io.stdout.write(`${fit(sanitizeForTerminal(row(tool.name, tool.source, tool.allowed ? 'yes' : 'asks', tool.description)))}\n`);
    const none = servers.length === 0 && !options.definitions?.length;
    io.stderr.write(none ? 'no tools: give --mcp, --mcp-config or --tools, or: gatechat config set --mcp NAME command "…"\n' : `${listed.length} tool${listed.length === 1 ? '' : 's'} from ${servers.length - failed} of ${servers.length} MCP server${servers.length === 1 ? '' : 's'}${options.definitions?.length ? ' and --tools' : ''}\n`);
  } else {
    for (const tool of listed) io.stdout.write(`${tool.name}\n`);
  }
  return ExitCode.ok;
}
