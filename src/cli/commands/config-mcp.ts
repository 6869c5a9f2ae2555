import { ExitCode, UsageError } from '../../exit-codes.js';
import { maskSecretEntries } from '../../config/keys.js';
import type { ConfigStore } from '../../config/store.js';
import { MCP_KEYS, parseServerName, setServerKey } from '../../tools/mcp/servers.js';
import type { ConfigIo } from './config.js';

// `config set|get|unset --mcp <name> …` (SPEC §15): one MCP server's entry in the top level or a profile,
// changed under the config lock like every other key.

export async function runMcpConfigCommand(
  store: ConfigStore,
  action: 'set' | 'get' | 'unset',
  args: string[],
  rawName: string,
  profile: string | undefined,
  io: ConfigIo,
  showSecrets = false,
): Promise<number> {
  const name = parseServerName(rawName, '--mcp');
  const [key, value] = args;
  if (key !== undefined && !(MCP_KEYS as readonly string[]).includes(key)) {
    throw new UsageError(`config ${action} --mcp ${name}: unknown key ${JSON.stringify(key)} (valid keys: ${MCP_KEYS.join(', ')})`);
  }
  switch (action) {
    case 'set':
      if (key === undefined || value === undefined || args.length !== 2) {
        throw new UsageError(`config set --mcp ${name}: expected a key and one value (quote a value that has spaces)`);
      }
      await store.updateMcpServer(name, profile, (stored) => setServerKey(stored, name, key, value));
      return ExitCode.ok;
    case 'unset': {
      const removed = await store.updateMcpServer(name, profile, (stored) => {
        if (stored === undefined || (key !== undefined && !(key in stored))) return null;
        if (key === undefined || key === 'command' || key === 'url') return undefined; // nothing left to start
        const rest = { ...stored };
        delete rest[key];
        return rest;
      });
      if (!removed && io.stdout.isTTY) io.stderr.write(`${name}${key ? ` ${key}` : ''} was not set\n`);
      return ExitCode.ok;
    }
    case 'get': {
      const scope = profile === undefined ? store.snapshot() : store.snapshot().profiles?.[profile];
      const stored = scope?.mcp?.[name];
      const entry = stored && !showSecrets ? maskedServer(stored) : stored;
      const shown = key === undefined ? entry : entry?.[key];
      if (shown !== undefined) io.stdout.write(`${typeof shown === 'string' ? shown : JSON.stringify(shown)}\n`);
      return ExitCode.ok;
    }
  }
}

/** Credentials in a server's headers and env masked, as `config get` masks api-key (SPEC §6). */
function maskedServer(stored: Record<string, unknown>): Record<string, unknown> {
  const masked = { ...stored };
  for (const field of ['headers', 'env'] as const) {
    const record = stored[field];
    if (typeof record === 'object' && record !== null) masked[field] = maskSecretEntries(record as Record<string, unknown>);
  }
  return masked;
}
