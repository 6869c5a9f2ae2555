// openMcpRunner against real MCP servers over stdio and Streamable HTTP (SPEC §15): the official
// reference servers from npm and a small SDK-built fault server. Nothing is mocked.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { textSink } from '../helpers/text-sink.js';
import { z } from 'zod';
import { openMcpRunner, type McpRunner } from '../../src/tools/mcp/runner.js';
import type { McpServerConfig } from '../../src/tools/mcp/servers.js';

const root = new URL('../..', import.meta.url).pathname;
const FS = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FAULT = join(root, 'test/fixtures/mcp/fault-server.mjs');
const node = process.execPath;


/** Set in this file's servers' environment (and so their children's): other test files' servers do not count. */
const TAG = `GC_MCP_TEST=${process.pid}-${Date.now()}`;
const [TAG_NAME, TAG_VALUE] = TAG.split('=') as [string, string];

/** Live processes started by this file's servers (they carry its tag) that also carry gatechat's run mark. */
function markedProcesses(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const environ = `\u0000${readFileSync(`/proc/${name}/environ`, 'utf8')}`;
      if (environ.includes('\u0000GATECHAT_MCP_RUN=') && environ.includes(`\u0000${TAG}\u0000`)) found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}

const runners: McpRunner[] = [];
afterAll(async () => {
  await Promise.all(runners.map((r) => r.close()));
});
async function open(servers: McpServerConfig[], verbose = false) {
  const err = textSink();
  const tagged = servers.map((server) => (server.command ? { ...server, env: { ...server.env, [TAG_NAME]: TAG_VALUE } } : server));
  const runner = await openMcpRunner(tagged, { stderr: err.stream, verbose, startTimeoutMs: 5000 });
  runners.push(runner);
  return { runner, stderr: err.text };
}
const signal = () => new AbortController().signal;

describe('stdio servers', () => {
  it('the filesystem reference server: tools as fs__<tool>, a file read through it, an error result for a path outside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-mcp-fs-'));
    writeFileSync(join(dir, 'note.txt'), 'hello from the file');
    const { runner } = await open([{ name: 'fs', command: node, args: [FS, dir] }]);
    const names = runner.tools().map((t) => t.name);
    expect(names).toContain('fs__read_text_file');
    expect(runner.tools().every((t) => t.source === 'fs' && /^[A-Za-z0-9_-]{1,64}$/.test(t.name))).toBe(true);
    expect(runner.tools().find((t) => t.name === 'fs__read_text_file')?.annotations?.readOnlyHint).toBe(true);
    const read = await runner.call('fs__read_text_file', { path: join(dir, 'note.txt') }, { signal: signal() });
    expect(read).toEqual({ ok: true, text: 'hello from the file' });
    const outside = await runner.call('fs__read_text_file', { path: '/etc/hostname' }, { signal: signal() });
    expect(outside.ok).toBe(false);
    expect(outside.text).toMatch(/access denied|outside/i);
    await runner.close();
  });

  it('two servers start together; the everything server echoes; an unknown tool is an error result', async () => {
    const { runner } = await open([
      { name: 'ev', command: node, args: [EVERYTHING] },
      { name: 'fault', command: node, args: [FAULT] },
    ]);
    expect(runner.failures).toEqual([]);
    expect(await runner.call('ev__echo', { message: 'ping' }, { signal: signal() })).toEqual({ ok: true, text: 'Echo: ping' });
    expect(await runner.call('fault__fail', {}, { signal: signal() })).toEqual({ ok: false, text: 'it went wrong' });
    expect((await runner.call('nope__x', {}, { signal: signal() })).ok).toBe(false);
    const big = await runner.call('fault__big', {}, { signal: signal() });
    expect(big.text.length).toBe(1024 * 1024);
    await runner.close();
  });

  it('tool processes never get the gateway key', async () => {
    process.env.GATECHAT_API_KEY = 'sk-never-to-a-tool';
    try {
      const { runner } = await open([{ name: 'fault', command: node, args: [FAULT], env: { GATECHAT_API_KEY: 'sk-not-even-from-config', OTHER: 'kept' } }]);
      const env = JSON.parse((await runner.call('fault__env', {}, { signal: signal() })).text) as Record<string, string>;
      expect(env.GATECHAT_API_KEY).toBeUndefined();
      expect(env.OTHER).toBe('kept');
      expect(JSON.stringify(env)).not.toContain('sk-never-to-a-tool');
      await runner.close();
    } finally {
      delete process.env.GATECHAT_API_KEY;
    }
  });

  it('a call cancelled through its signal ends at once; a server that crashes mid-call is an error result', async () => {
    const { runner } = await open([{ name: 'fault', command: node, args: [FAULT] }]);
    const controller = new AbortController();
    const started = Date.now();
    const pending = runner.call('fault__slow', { ms: 30_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const cancelled = await pending;
    expect(cancelled.ok).toBe(false);
    expect(cancelled.text).toMatch(/cancel/i);
    expect(Date.now() - started).toBeLessThan(10_000);
    const crashed = await runner.call('fault__crash', {}, { signal: signal() });
    expect(crashed.ok).toBe(false);
    expect(crashed.text).toMatch(/fault/);
    await runner.close();
  });

  it('a server that fails or never answers initialize is named in one line and left out; the others run', async () => {
    const { runner, stderr } = await open([
      { name: 'gone', command: node, args: ['-e', 'process.stderr.write("no config here\\n"); process.exit(3)'] },
      { name: 'mute', command: node, args: [FAULT], env: { FAULT: 'no-init' } },
      { name: 'fault', command: node, args: [FAULT] },
    ]);
    expect(runner.failures.map((f) => f.server).sort()).toEqual(['gone', 'mute']);
    const lines = stderr().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.includes(' gone '))).toMatch(/MCP server gone did not start/);
    expect(lines.find((l) => l.includes(' mute '))).toMatch(/MCP server mute did not start \(no answer within 5 s\)/);
    expect(runner.tools().every((t) => t.source === 'fault')).toBe(true);
    await runner.close();
    expect(markedProcesses()).toEqual([]);
  });

  it('tool output schemas: a result that does not match is an error result; one that cannot be compiled fails only its own calls', async () => {
    const { runner, stderr } = await open([{ name: 'fault', command: node, args: [FAULT], env: { FAULT: 'output-schema' } }]);
    expect(runner.failures).toEqual([]);
    expect(stderr()).toBe('');
    expect(runner.tools().map((t) => t.name)).toEqual(['fault__typed', 'fault__odd']);
    expect(await runner.call('fault__typed', { value: 'x' }, { signal: signal() })).toEqual({ ok: true, text: '{"n":"x"}' });
    const mismatch = await runner.call('fault__typed', { value: 1 }, { signal: signal() });
    expect(mismatch.ok).toBe(false);
    expect(mismatch.text).toMatch(/does not match the tool's output schema/);
    const odd = await runner.call('fault__odd', {}, { signal: signal() });
    expect(odd.ok).toBe(false);
    expect(odd.text).toMatch(/can't resolve reference #\/definitions\/missing/);
    await runner.close();
  });

  it('-v: a failing server\'s stderr tail is shown, each line marked with its name', async () => {
    const { stderr } = await open([{ name: 'gone', command: node, args: ['-e', 'process.stderr.write("no config here\\n"); process.exit(3)'] }], true);
    expect(stderr()).toContain('[gone] no config here');
  });

  it('close() stops every server and what it started: no process left', async () => {
    const { runner } = await open([
      { name: 'a', command: node, args: [FAULT], env: { FAULT: 'grandchild' } },
      { name: 'b', command: node, args: [EVERYTHING] },
    ]);
    expect(markedProcesses().length).toBeGreaterThanOrEqual(3); // two servers and the grandchild
    await runner.close();
    expect(markedProcesses()).toEqual([]);
  });
});

describe('Streamable HTTP', () => {
  let http: Server;
  afterAll(() => http?.close());

  it('a server at a URL: its tools listed and called, headers sent', async () => {
    const seen: string[] = [];
    http = createServer(async (req, res) => {
      seen.push(String(req.headers['x-team'] ?? ''));
      const server = new McpServer({ name: 'web', version: '1.0.0' });
      server.registerTool('add', { description: 'adds', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      let body = '';
      for await (const chunk of req) body += chunk;
      await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as { port: number }).port;
    const { runner } = await open([{ name: 'web', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Team': 'blue' } }]);
    expect(runner.tools().map((t) => t.name)).toEqual(['web__add']);
    expect(await runner.call('web__add', { a: 2, b: 3 }, { signal: signal() })).toEqual({ ok: true, text: '5' });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((h) => h === 'blue')).toBe(true);
    await runner.close();
  });
});
