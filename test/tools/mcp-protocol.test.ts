// gatechat's own stdio MCP client (src/tools/mcp/jsonrpc-client.ts, no SDK runtime) against a real
// SDK-built server (test/fixtures/mcp/protocol-server.mjs): the protocol the SDK's Client used to speak for
// it — pagination, version negotiation, the server's own requests, cancellation, JSON-RPC errors, lines
// that are not messages. Through openMcpRunner, as gatechat uses it; nothing mocked.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { textSink } from '../helpers/text-sink.js';
import { openMcpRunner, type McpRunner } from '../../src/tools/mcp/runner.js';
import { VERSION } from '../../src/version.js';

const PROTOCOL = new URL('../fixtures/mcp/protocol-server.mjs', import.meta.url).pathname;
const node = process.execPath;
const signal = () => new AbortController().signal;

const runners: McpRunner[] = [];
afterAll(async () => {
  await Promise.all(runners.map((r) => r.close()));
});
async function open(env: Record<string, string> = {}, startTimeoutMs = 5000) {
  const err = textSink();
  const runner = await openMcpRunner([{ name: 'p', command: node, args: [PROTOCOL], env }], { stderr: err.stream, verbose: false, startTimeoutMs });
  runners.push(runner);
  return { runner, stderr: err.text };
}
/** The SDK's own Client against a fresh protocol server, as gatechat used it before (tools listed, every page). */
async function withSdkClient(use: (callText: (tool: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<string>) => Promise<void>) {
  const sdk = new Client({ name: 'gatechat', version: VERSION });
  await sdk.connect(new StdioClientTransport({ command: node, args: [PROTOCOL], stderr: 'ignore' }));
  try {
    let cursor: string | undefined;
    do cursor = (await sdk.listTools(cursor ? { cursor } : undefined)).nextCursor;
    while (cursor);
    await use(async (tool, args, callSignal) => {
      const result = await sdk.callTool({ name: tool, arguments: args }, undefined, { signal: callSignal, timeout: 2 ** 31 - 1 });
      return (result.content as Array<{ text: string }>)[0]!.text;
    });
  } finally {
    await sdk.close();
  }
}
const text = async (runner: McpRunner, tool: string, args: unknown = {}) => {
  const outcome = await runner.call(`p__${tool}`, args, { signal: signal() });
  expect(outcome.ok, outcome.text).toBe(true);
  return outcome.text;
};

describe('stdio MCP client', () => {
  let shared: McpRunner;
  it('lists every page of tools (the cursor sent back); initialize says the latest version, no capabilities, gatechat; initialized follows', async () => {
    ({ runner: shared } = await open());
    expect(shared.failures).toEqual([]);
    expect(shared.tools().map((t) => t.name)).toEqual(['p__hello', 'p__ask', 'p__typed', 'p__slow', 'p__cancellations', 'p__rpc-error', 'p__noisy', 'p__bad-shape', 'p__wire']);
    const hello = JSON.parse(await text(shared, 'hello')) as Record<string, unknown>;
    expect(hello.cursors).toEqual([null, 'page-1', 'page-2']);
    expect(hello.initialize).toEqual({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gatechat', version: VERSION } });
    expect(hello.initialized).toBe(true);
  });

  it("answers the server's ping with an empty result, and its other requests (roots, sampling, elicitation) with method not found", async () => {
    expect(await text(shared, 'ask', { method: 'ping' })).toBe('{}');
    for (const method of ['roots/list', 'sampling/createMessage', 'elicitation/create']) {
      expect(await text(shared, 'ask', { method })).toBe('error: MCP error -32601: Method not found');
    }
  });

  it('a call cancelled through its signal tells the server (notifications/cancelled with the reason)', async () => {
    const controller = new AbortController();
    const pending = shared.call('p__slow', { ms: 30_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const cancelled = await pending;
    expect(cancelled).toEqual({ ok: false, text: 'cancelled (MCP error -32001: AbortError: This operation was aborted)' });
    // The server saw the cancellation before it answers the next call (one stdin, in order).
    expect(JSON.parse(await text(shared, 'cancellations'))).toEqual(['AbortError: This operation was aborted']);
  });

  it("a JSON-RPC error answer is the call's error result, as the SDK's McpError said it", async () => {
    // The SDK's server puts its own McpError's whole message (its prefix too) into the error it sends.
    expect(await shared.call('p__rpc-error', {}, { signal: signal() })).toEqual({ ok: false, text: 'MCP server p: MCP error -32602: MCP error -32602: the tool refused its arguments' });
  });

  it('a line that is not JSON, a message that is not JSON-RPC and notifications nobody asked for are skipped; the call still answers', async () => {
    expect(await text(shared, 'noisy')).toBe('still fine');
    expect(await text(shared, 'ask', { method: 'ping' })).toBe('{}');
  });

  it('a result of the wrong shape is an error result naming the field (in one line, where the SDK printed its zod issues)', async () => {
    const bad = await shared.call('p__bad-shape', {}, { signal: signal() });
    expect(bad).toEqual({ ok: false, text: 'MCP server p: invalid tools/call result from the server (content: expected an array, got string)' });
  });

  it("an output schema is checked for a tool on any page (the SDK's client kept only the last page's)", async () => {
    expect(await text(shared, 'typed', { n: 'x' })).toBe('{"n":"x"}');
    const mismatch = await shared.call('p__typed', { n: 1 }, { signal: signal() });
    expect(mismatch.ok).toBe(false);
    expect(mismatch.text).toMatch(/^MCP server p: MCP error -32602: Structured content does not match the tool's output schema: data\/n must be string/);
    await shared.close();
  });

  it("writes what the SDK's Client writes, byte for byte: initialize, initialized, the pages, calls, answers to the server's requests, a cancellation", async () => {
    // The same conversation, each client against a fresh server; `wire` returns what the server read.
    const conversation = async (call: (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>) => {
      await call('ask', { method: 'ping' }, signal());
      await call('ask', { method: 'roots/list' }, signal());
      const controller = new AbortController();
      const slow = call('slow', { ms: 30_000 }, controller.signal).catch(() => {});
      setTimeout(() => controller.abort(), 200);
      await slow;
      return (await call('wire', {}, signal())) as string;
    };
    const { runner } = await open();
    const ours = await conversation(async (tool, args, callSignal) => (await runner.call(`p__${tool}`, args, { signal: callSignal })).text);
    await runner.close();

    await withSdkClient(async (callText) => {
      const theirs = await conversation(callText);
      expect(JSON.parse(ours)).toEqual(JSON.parse(theirs));
    });
  });

  it("a call already answered sends nothing when its signal aborts later; the SDK's Client sent notifications/cancelled for it (a deliberate difference)", async () => {
    const cancelledLines = (wire: string) => (JSON.parse(wire) as string[]).filter((line) => line.includes('notifications/cancelled'));
    const { runner } = await open();
    const controller = new AbortController();
    expect((await runner.call('p__ask', { method: 'ping' }, { signal: controller.signal })).ok).toBe(true);
    controller.abort();
    expect(cancelledLines(await text(runner, 'wire'))).toEqual([]);
    await runner.close();

    await withSdkClient(async (callText) => {
      const sdkController = new AbortController();
      await callText('ask', { method: 'ping' }, sdkController.signal);
      sdkController.abort();
      expect(cancelledLines(await callText('wire', {}))).toHaveLength(1);
    });
  });

  it('a server that names the same next page again is refused in one line, not listed for ever', async () => {
    const { runner, stderr } = await open({ CURSOR: 'repeat' });
    expect(runner.failures).toEqual([{ server: 'p', reason: 'its tools/list repeated the cursor "again"' }]);
    expect(stderr()).toBe('gatechat: MCP server p did not start (its tools/list repeated the cursor "again"); its tools are left out (-v shows its stderr)\n');
    expect(runner.tools()).toEqual([]);
    await runner.close();
  });

  it('the start time bounds the answer and all the pages of tools/list together: pages that never end are refused', async () => {
    // 3 s: time enough for the server to boot and answer on a busy machine, so that it is the pages that run out.
    const started = Date.now();
    const { runner } = await open({ CURSOR: 'endless' }, 3000);
    expect(runner.failures).toEqual([{ server: 'p', reason: 'its tools/list did not end within 3 s' }]);
    expect(Date.now() - started).toBeLessThan(8000);
    await runner.close();
  });

  it('an older version the SDK accepts starts; one it does not know is refused in one line, the server stopped', async () => {
    const { runner: older } = await open({ PROTOCOL_VERSION: '2024-11-05' });
    expect(older.failures).toEqual([]);
    expect(await text(older, 'ask', { method: 'ping' })).toBe('{}');
    await older.close();
    const { runner: unknown, stderr } = await open({ PROTOCOL_VERSION: '1999-01-01' });
    expect(unknown.failures).toEqual([{ server: 'p', reason: "Server's protocol version is not supported: 1999-01-01" }]);
    expect(stderr()).toBe("gatechat: MCP server p did not start (Server's protocol version is not supported: 1999-01-01); its tools are left out (-v shows its stderr)\n");
    expect(unknown.tools()).toEqual([]);
    await unknown.close();
  });

  it("a server's reason for not starting is cut to one short line (100 KB of it reaches neither stderr nor the failures)", async () => {
    const { runner, stderr } = await open({ PROTOCOL_VERSION: `v${'9'.repeat(100 * 1024)}` });
    const reason = runner.failures[0]!.reason;
    expect(reason.startsWith("Server's protocol version is not supported: v999")).toBe(true);
    expect(reason.endsWith('…')).toBe(true);
    expect(reason.length).toBeLessThanOrEqual(201);
    expect(stderr()).toBe(`gatechat: MCP server p did not start (${reason}); its tools are left out (-v shows its stderr)\n`);
    await runner.close();
  });
});
