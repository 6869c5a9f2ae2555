// launch.ts spawns the stdio servers before the MCP SDK is loaded; runner.ts attaches the SDK's client to
// them afterwards (SPEC §15 "Servers' lives"). Real processes, nothing mocked.
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { textSink } from '../helpers/text-sink.js';
import { INHERITED_ENV, launchStdioServers } from '../../src/tools/mcp/launch.js';
import { openMcpRunner } from '../../src/tools/mcp/runner.js';
import type { McpServerConfig } from '../../src/tools/mcp/servers.js';

const node = process.execPath;
const FAULT = new URL('../fixtures/mcp/fault-server.mjs', import.meta.url).pathname;


const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('servers spawned before the SDK is loaded', () => {
  it('inherit what the SDK\'s own stdio transport would pass on of gatechat\'s environment', () => {
    expect(INHERITED_ENV).toEqual(DEFAULT_INHERITED_ENV_VARS);
  });

  it('one that ended before its client was attached, and one whose program is missing, are named at once; the others run', async () => {
    const err = textSink();
    const options = { stderr: err.stream, verbose: false, startTimeoutMs: 8000 };
    const servers: McpServerConfig[] = [
      { name: 'gone', command: node, args: ['-e', 'process.exit(3)'] },
      { name: 'nowhere', command: '/nonexistent/gatechat-test-server' },
      { name: 'fault', command: node, args: [FAULT] },
    ];
    const launch = launchStdioServers(servers, options);
    const gone = launch.servers.get('gone')!.child;
    await new Promise((resolve) => gone.once('close', resolve)); // exited, its pipes' end seen
    expect(launch.servers.get('gone')!.closed).toBe(true);
    const started = Date.now();
    const runner = await openMcpRunner(servers, options, launch);
    try {
      expect(Date.now() - started).toBeLessThan(5000); // not the start timeout
      expect(runner.failures.map((f) => f.server).sort()).toEqual(['gone', 'nowhere']);
      expect(runner.failures.find((f) => f.server === 'nowhere')?.reason).toMatch(/ENOENT/);
      expect(runner.failures.find((f) => f.server === 'gone')?.reason).toMatch(/Connection closed/);
      expect(err.text().trim().split('\n')).toHaveLength(2);
      expect(runner.tools().every((t) => t.source === 'fault')).toBe(true);
      expect((await runner.call('fault__fail', {}, { signal: new AbortController().signal })).text).toBe('it went wrong');
    } finally {
      await runner.close();
    }
    const pid = launch.servers.get('fault')!.child.pid!;
    expect(alive(pid)).toBe(false);
  });

  it('one that answers initialize but fails to list its tools is left out and stopped at once', async () => {
    const err = textSink();
    const options = { stderr: err.stream, verbose: false, startTimeoutMs: 8000 };
    const servers: McpServerConfig[] = [{ name: 'nolist', command: node, args: [FAULT], env: { FAULT: 'no-list' } }];
    const launch = launchStdioServers(servers, options);
    const runner = await openMcpRunner(servers, options, launch);
    try {
      expect(runner.failures).toEqual([{ server: 'nolist', reason: expect.stringMatching(/no list today/) }]);
      expect(alive(launch.servers.get('nolist')!.child.pid!)).toBe(false);
    } finally {
      await runner.close();
    }
  });
});
