import { UsageError } from '../../exit-codes.js';

// Where MCP servers are described (SPEC §15): `--mcp name=<command line|URL>`, the `mcp` config key
// (`config set --mcp <name> <key> <value>`, per profile), and `--mcp-config <file>` in the
// `{"mcpServers": {…}}` form Claude Desktop, Cursor and Claude Code read, so a user's file works as it is.
// Pure: strings in, validated server descriptions out; nothing is started here.

export interface McpServerConfig {
  name: string;
  /** stdio: the program and its arguments (no shell). */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Streamable HTTP (or the older SSE transport when `transport` says so or the server only speaks it). */
  url?: string;
  headers?: Record<string, string>;
  transport?: 'http' | 'sse';
  /** Tools of this server that run without asking: globs over the model-facing name, or the bare tool name. */
  allow?: string[];
  enabled?: boolean;
}

/** The keys `config set --mcp <name> <key> <value>` takes. */
export const MCP_KEYS = ['command', 'url', 'env', 'headers', 'allow', 'enabled'] as const;
export type McpKey = (typeof MCP_KEYS)[number];

const NAME = /^[A-Za-z0-9_-]{1,32}$/;

export function parseServerName(name: string, where: string): string {
  if (!NAME.test(name)) {
    throw new UsageError(`${where}: server name ${JSON.stringify(name)} must be 1–32 letters, digits, '_' or '-' (it prefixes its tools' names)`);
  }
  return name;
}

function isHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

function parseUrl(text: string, where: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // reported below
  }
  throw new UsageError(`${where}: ${JSON.stringify(text)} is not an http(s) URL`);
}

/**
 * Splits a command line as a POSIX shell would split words, without running a shell: blanks separate
 * words, '…' is literal, "…" keeps blanks (\" \\ \$ \` escaped), \x outside quotes is x. No expansion.
 */
export function splitCommandLine(line: string, where: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError(`${where}: unterminated ' in ${JSON.stringify(line)}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && '"\\$`'.includes(line[j + 1] ?? '')) j++;
        word += line[j];
      }
      if (j >= line.length) throw new UsageError(`${where}: unterminated " in ${JSON.stringify(line)}`);
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** `--mcp name=<command line|URL>`. */
export function parseMcpFlag(value: string): McpServerConfig {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--mcp ${JSON.stringify(value)}: expected name=<command line|URL>, e.g. --mcp fs="npx -y @modelcontextprotocol/server-filesystem ."`);
  const name = parseServerName(value.slice(0, eq), '--mcp');
  const target = value.slice(eq + 1).trim();
  if (target === '') throw new UsageError(`--mcp ${name}: no command line or URL after '='`);
  if (isHttpUrl(target)) return { name, url: parseUrl(target, `--mcp ${name}`) };
  const [command, ...args] = splitCommandLine(target, `--mcp ${name}`);
  return { name, command: command!, args };
}

function stringRecord(value: unknown, where: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw new UsageError(`${where}: must be an object of strings`);
  }
  return { ...(value as Record<string, string>) };
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new UsageError(`${where}: must be a list of strings`);
  return [...value];
}

/**
 * One server object as other MCP clients write it: `{command, args, env}` for stdio, `{url, headers}`
 * (with `type` "http", "streamable-http" or "sse") for HTTP; gatechat's own `allow` and `enabled` too.
 * `command` may also be a whole command line (gatechat's config form) when `args` is absent.
 */
export function parseServerObject(name: string, value: unknown, where: string): McpServerConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${where}: must be an object`);
  const raw = value as Record<string, unknown>;
  const server: McpServerConfig = { name: parseServerName(name, where) };
  const type = raw.type ?? raw.transport;
  if (type !== undefined && !['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'].includes(String(type))) {
    throw new UsageError(`${where}: type ${JSON.stringify(type)} is not one of stdio, http, sse`);
  }
  if (raw.url !== undefined) {
    if (typeof raw.url !== 'string') throw new UsageError(`${where}.url: must be a string`);
    server.url = parseUrl(raw.url, `${where}.url`);
    if (type === 'sse') server.transport = 'sse';
    if (raw.headers !== undefined) server.headers = stringRecord(raw.headers, `${where}.headers`);
  } else if (raw.command !== undefined) {
    if (typeof raw.command !== 'string' || raw.command.trim() === '') throw new UsageError(`${where}.command: must be a non-empty string`);
    if (raw.args === undefined) {
      const [command, ...args] = splitCommandLine(raw.command, `${where}.command`);
      server.command = command!;
      server.args = args;
    } else {
      server.command = raw.command;
      server.args = stringList(raw.args, `${where}.args`);
    }
  } else {
    throw new UsageError(`${where}: needs "command" (a program to start) or "url" (a server to reach)`);
  }
  if (raw.env !== undefined) server.env = stringRecord(raw.env, `${where}.env`);
  if (raw.allow !== undefined) server.allow = stringList(raw.allow, `${where}.allow`);
  if (raw.enabled !== undefined || raw.disabled !== undefined) {
    const enabled = raw.enabled ?? !raw.disabled;
    if (typeof enabled !== 'boolean') throw new UsageError(`${where}.enabled: must be true or false`);
    server.enabled = enabled;
  }
  return server;
}

/** `--mcp-config <file>`: `{"mcpServers": {"name": {…}}}` (a bare `{"name": {…}}` is taken too). */
export function parseMcpConfigFile(text: string, path: string): McpServerConfig[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--mcp-config ${path}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new UsageError(`--mcp-config ${path}: expected {"mcpServers": {…}}`);
  }
  const servers = (document as Record<string, unknown>).mcpServers ?? document;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new UsageError(`--mcp-config ${path}: "mcpServers" must be an object of servers`);
  }
  return Object.entries(servers).map(([name, value]) => parseServerObject(name, value, `--mcp-config ${path}: mcpServers.${name}`));
}

/** The `mcp` config value (an object of server objects, as stored by `config set --mcp`). */
export function parseStoredServers(value: unknown, where: string): McpServerConfig[] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${where}: "mcp" must be an object of servers`);
  return Object.entries(value).map(([name, server]) => parseServerObject(name, server, `${where}: mcp.${name}`));
}

/**
 * Config first, then `--mcp-config` files, then `--mcp` flags: a later description of a name replaces
 * an earlier one. Servers with `enabled: false` are left out.
 */
export function mergeServers(...lists: McpServerConfig[][]): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const list of lists) for (const server of list) byName.set(server.name, server);
  return [...byName.values()].filter((server) => server.enabled !== false);
}

/** `config set --mcp <name> <key> <value>` applied to the stored object of that server. */
export function setServerKey(stored: Record<string, unknown> | undefined, name: string, key: string, value: string): Record<string, unknown> {
  const where = `config set --mcp ${name} ${key}`;
  if (!(MCP_KEYS as readonly string[]).includes(key)) throw new UsageError(`${where}: unknown key (valid keys: ${MCP_KEYS.join(', ')})`);
  const next: Record<string, unknown> = { ...stored };
  switch (key as McpKey) {
    case 'command':
      splitCommandLine(value, where);
      next.command = value;
      delete next.args;
      delete next.url;
      break;
    case 'url':
      next.url = parseUrl(value, where);
      delete next.command;
      delete next.args;
      break;
    case 'env': {
      const eq = value.indexOf('=');
      if (eq <= 0) throw new UsageError(`${where}: expected NAME=value`);
      next.env = { ...(next.env as Record<string, string> | undefined), [value.slice(0, eq)]: value.slice(eq + 1) };
      break;
    }
    case 'headers': {
      const colon = value.indexOf(':');
      if (colon <= 0) throw new UsageError(`${where}: expected "Name: value"`);
      next.headers = { ...(next.headers as Record<string, string> | undefined), [value.slice(0, colon).trim()]: value.slice(colon + 1).trim() };
      break;
    }
    case 'allow': {
      const patterns = value.split(',').map((p) => p.trim()).filter(Boolean);
      if (patterns.length === 0) throw new UsageError(`${where}: expected one or more patterns, comma-separated`);
      next.allow = [...new Set([...((next.allow as string[] | undefined) ?? []), ...patterns])];
      break;
    }
    case 'enabled':
      if (value !== 'true' && value !== 'false') throw new UsageError(`${where}: expected true or false`);
      next.enabled = value === 'true';
      break;
  }
  // The result must still describe a server (a first `set` of env alone does not).
  if (next.command === undefined && next.url === undefined) {
    throw new UsageError(`${where}: set "command" or "url" of ${name} first`, `gatechat config set --mcp ${name} command "npx -y @modelcontextprotocol/server-filesystem ."`);
  }
  parseServerObject(name, next, `config --mcp ${name}`);
  return next;
}
