import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { newClient } from './client.js';
import { timeout } from './timeout.js';
import type { McpServerConfig } from './servers.js';

// An MCP server at a URL (SPEC §15): Streamable HTTP, falling back to the older SSE transport. Its own
// module so that runs with stdio servers only never load the HTTP transports (runner.ts imports it lazily).

export async function connectHttp(server: McpServerConfig, ms: number): Promise<{ client: Client; transport: Transport }> {
  const url = new URL(server.url!);
  const requestInit = server.headers ? { headers: server.headers } : undefined;
  const attempt = async (transport: Transport) => {
    const client = newClient();
    try {
      await timeout(client.connect(transport, { timeout: ms }), ms, 'connecting');
      return { client, transport };
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
  };
  if (server.transport === 'sse') return attempt(new SSEClientTransport(url, { requestInit }));
  try {
    return await attempt(new StreamableHTTPClientTransport(url, { requestInit }));
  } catch (error) {
    // A server that only speaks the older SSE transport answers the Streamable HTTP POST with 4xx.
    if (!/\b40[045]\b/.test((error as Error).message)) throw error;
    return attempt(new SSEClientTransport(url, { requestInit }));
  }
}
