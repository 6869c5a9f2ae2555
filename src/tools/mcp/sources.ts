import { readFileSync } from 'node:fs';
import { UsageError } from '../../exit-codes.js';
import type { ConfigFile } from '../../config/keys.js';
import { mergeServers, parseMcpConfigFile, parseMcpFlag, parseStoredServers, type McpServerConfig } from './servers.js';

// Every MCP server of a run (SPEC §15), in the order a later one replaces an earlier one of the same
// name: the config's top level, the profile in effect, a template's front matter, `--mcp-config`, `--mcp`.

export interface McpSources {
  /** config.json as read (the store's snapshot). */
  file: ConfigFile;
  profile?: string;
  specs: string[];
  configFile?: string;
  /** `-T`'s front matter `mcp`. */
  template?: { name: string; servers: Record<string, unknown> };
}

/** True when the run has any MCP server to start: checked without loading the MCP code. */
export function hasMcpServers(sources: McpSources): boolean {
  const profileMcp = sources.profile === undefined ? undefined : sources.file.profiles?.[sources.profile]?.mcp;
  return (
    sources.specs.length > 0 ||
    sources.configFile !== undefined ||
    Object.keys(sources.file.mcp ?? {}).length > 0 ||
    Object.keys(profileMcp ?? {}).length > 0 ||
    Object.keys(sources.template?.servers ?? {}).length > 0
  );
}

export function mcpServersOf(sources: McpSources): McpServerConfig[] {
  const top = parseStoredServers(sources.file.mcp, 'config');
  const profile = sources.profile === undefined ? [] : parseStoredServers(sources.file.profiles?.[sources.profile]?.mcp, `config profile ${sources.profile}`);
  let fromFile: McpServerConfig[] = [];
  if (sources.configFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(sources.configFile, 'utf8');
    } catch (error) {
      throw new UsageError(`--mcp-config: cannot read ${sources.configFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    fromFile = parseMcpConfigFile(text, sources.configFile);
  }
  const fromTemplate = sources.template ? parseStoredServers(sources.template.servers, `template ${sources.template.name}`) : [];
  return mergeServers(top, profile, fromTemplate, fromFile, sources.specs.map(parseMcpFlag));
}

/** `allow` patterns of each server, as globs over model-facing names (a bare tool name means that tool). */
export function serverAllowPatterns(servers: McpServerConfig[]): string[] {
  return servers.flatMap((server) => (server.allow ?? []).map((pattern) => (pattern.includes('__') ? pattern : `${server.name}__${pattern}`)));
}
