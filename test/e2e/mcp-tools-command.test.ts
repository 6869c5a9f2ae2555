// `gatechat tools`, --mcp, --mcp-config and `config set --mcp` through the built binary, with the
// official reference MCP servers from npm (SPEC §15 "Runnable tools come from", "Listing", "Servers' lives").
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeUserDirs, repoRoot, runCli } from '../helpers/cli.js';

const FS = join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const EVERYTHING = join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FAULT = join(repoRoot, 'test/fixtures/mcp/fault-server.mjs');
const node = process.execPath;

let user: ReturnType<typeof makeUserDirs>;
let dir: string;
beforeEach(() => {
  user = makeUserDirs();
  dir = mkdtempSync(join(user.home, 'files-'));
});
afterEach(() => user.cleanup());
const gatechat = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...user.env(), ...extra }, timeoutMs: 40_000 });

/** Live processes whose environment holds `tag` (set in the servers' env, so inherited by what they start). */
function processesTagged(tag: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z') && `\0${readFileSync(`/proc/${name}/environ`, 'utf8')}`.includes(`\0${tag}\0`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('gatechat tools', () => {
  it('--mcp: every tool as <server>__<tool>, one per line piped; --json says where each runs and whether --allow lets it run', async () => {
    const listed = await gatechat(['tools', '--mcp', `fs=${node} ${FS} ${dir}`, '--mcp', `ev=${node} ${EVERYTHING}`]);
    expect(listed.code).toBe(0);
    const names = listed.stdout.trim().split('\n');
    expect(names).toContain('fs__read_text_file');
    expect(names).toContain('ev__echo');
    expect(listed.stderr).toBe('');

    const json = await gatechat(['tools', '--mcp', `fs=${node} ${FS} ${dir}`, '--allow', 'fs__read_*', '--json']);
    const tools = JSON.parse(json.stdout) as Array<{ name: string; source: string; allowed: boolean; description: string; annotations?: { readOnlyHint?: boolean } }>;
    expect(tools.find((t) => t.name === 'fs__read_text_file')).toMatchObject({ source: 'fs', allowed: true, annotations: { readOnlyHint: true } });
    expect(tools.find((t) => t.name === 'fs__write_file')).toMatchObject({ source: 'fs', allowed: false });
    expect(tools.every((t) => !t.description.includes('\n'))).toBe(true);
  });

  it('--mcp-config: a Claude Desktop file works unchanged; --tools x-command definitions are listed as command tools', async () => {
    const config = join(user.home, 'claude_desktop_config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { filesystem: { command: node, args: [FS, dir] } } }, null, 2));
    const toolsFile = join(user.home, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify([
      { type: 'function', function: { name: 'word_count', description: 'counts words', parameters: { type: 'object' } }, 'x-command': 'wc -w' },
      { type: 'function', function: { name: 'shown_only', parameters: { type: 'object' } } },
    ]));
    const json = await gatechat(['tools', '--mcp-config', config, '--tools', toolsFile, '--allow', 'word_count', '--json']);
    expect(json.code).toBe(0);
    const tools = JSON.parse(json.stdout) as Array<{ name: string; source: string; allowed: boolean }>;
    expect(tools.find((t) => t.name === 'filesystem__list_directory')?.source).toBe('filesystem');
    expect(tools.find((t) => t.name === 'word_count')).toMatchObject({ source: 'command', allowed: true });
    expect(tools.find((t) => t.name === 'shown_only')).toMatchObject({ source: 'definition only', allowed: false });
  });

  it('a server that fails is named in one stderr line; the others are listed; exit 0', async () => {
    const result = await gatechat(['tools', '--mcp', `gone=${node} -e process.exit(4)`, '--mcp', `ev=${node} ${EVERYTHING}`]);
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^gatechat: MCP server gone did not start \(.+\); its tools are left out/)]);
    expect(result.stdout).toContain('ev__echo');
  });

  it('bad --mcp or --mcp-config: one line, exit 2, nothing started', async () => {
    const noName = await gatechat(['tools', '--mcp', 'npx server']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toMatch(/--mcp "npx server": expected name=<command line\|URL>/);
    const missing = await gatechat(['tools', '--mcp-config', join(user.home, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--mcp-config: cannot read .*nope.json: ENOENT/);
  });

  it('SIGTERM while servers start: gatechat dies of it and leaves no server or server child behind', async () => {
    const tag = `GC_MCP_E2E=${process.pid}-${Date.now()}`;
    const config = join(user.home, 'servers.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {
      child: { command: node, args: [FAULT], env: { FAULT: 'grandchild', [tag.split('=')[0]!]: tag.split('=')[1]! } },
      mute: { command: node, args: [FAULT], env: { FAULT: 'no-init', [tag.split('=')[0]!]: tag.split('=')[1]! } },
    } }));
    const result = await runCli(['tools', '--mcp-config', config], {
      env: user.env(),
      onSpawn: (child) => {
        // Once both servers (and the grandchild) run, while `mute` still keeps the start waiting.
        const poll = setInterval(() => {
          if (processesTagged(tag).length >= 3) {
            clearInterval(poll);
            child.kill('SIGTERM');
          }
        }, 50);
      },
    });
    expect(result.signal).toBe('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesTagged(tag)).toEqual([]);
  });
});

describe('config set --mcp', () => {
  it('servers stored at the top level and per profile; enabled false leaves one out; get and unset', async () => {
    expect((await gatechat(['config', 'set', '--mcp', 'fs', 'command', `${node} ${FS} ${dir}`])).code).toBe(0);
    expect((await gatechat(['config', 'set', '--mcp', 'fs', 'allow', 'read_*'])).code).toBe(0);
    expect((await gatechat(['config', 'set', '--profile', 'work', '--mcp', 'ev', 'command', `${node} ${EVERYTHING}`])).code).toBe(0);

    const top = JSON.parse((await gatechat(['tools', '--json'])).stdout) as Array<{ name: string; allowed: boolean }>;
    expect(top.some((t) => t.name.startsWith('ev__'))).toBe(false);
    expect(top.find((t) => t.name === 'fs__read_text_file')?.allowed).toBe(true); // the server's own allow
    expect(top.find((t) => t.name === 'fs__write_file')?.allowed).toBe(false);
    const work = JSON.parse((await gatechat(['tools', '-p', 'work', '--json'])).stdout) as Array<{ name: string }>;
    expect(work.some((t) => t.name === 'ev__echo')).toBe(true);
    expect(work.some((t) => t.name === 'fs__read_text_file')).toBe(true);

    expect((await gatechat(['config', 'get', '--mcp', 'fs', 'allow'])).stdout).toBe('["read_*"]\n');
    expect((await gatechat(['config', 'set', '--mcp', 'fs', 'enabled', 'false'])).code).toBe(0);
    expect((await gatechat(['tools'])).stdout).toBe('');
    expect((await gatechat(['config', 'unset', '--mcp', 'fs'])).code).toBe(0);
    expect((await gatechat(['config', 'get', '--mcp', 'fs'])).stdout).toBe('');

    const bad = await gatechat(['config', 'set', '--mcp', 'fs', 'colour', 'red']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown key "colour" \(valid keys: command, url, env, headers, allow, enabled\)/);
    const envFirst = await gatechat(['config', 'set', '--mcp', 'db', 'env', 'A=1']);
    expect(envFirst.code).toBe(2);
    expect(envFirst.stderr).toMatch(/set "command" or "url" of db first/);
  });

  it('get masks credentials in headers and env (like config get does for api-key) unless --show-secrets', async () => {
    const token = 'ghp_mcpSecretToken1234567890WXYZ';
    expect((await gatechat(['config', 'set', '--mcp', 'gh', 'url', 'http://127.0.0.1:9/mcp'])).code).toBe(0);
    expect((await gatechat(['config', 'set', '--mcp', 'gh', 'headers', `Authorization: Bearer ${token}`])).code).toBe(0);
    expect((await gatechat(['config', 'set', '--mcp', 'gh', 'headers', 'X-Trace: on'])).code).toBe(0);
    expect((await gatechat(['config', 'set', '--mcp', 'gh', 'env', `GITHUB_TOKEN=${token}`])).code).toBe(0);
    expect((await gatechat(['config', 'set', '--mcp', 'gh', 'env', 'LOG_LEVEL=debug'])).code).toBe(0);
    for (const args of [['gh'], ['gh', 'headers'], ['gh', 'env']]) {
      const shown = await gatechat(['config', 'get', '--mcp', ...args]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).not.toContain(token.slice(4, 24));
      expect(shown.stdout).toMatch(/…WXYZ/);
    }
    const all = JSON.parse((await gatechat(['config', 'get', '--mcp', 'gh'])).stdout);
    expect(all.headers['X-Trace']).toBe('on');
    expect(all.env.LOG_LEVEL).toBe('debug');
    const shown = JSON.parse((await gatechat(['config', 'get', '--show-secrets', '--mcp', 'gh', 'headers'])).stdout);
    expect(shown.Authorization).toBe(`Bearer ${token}`);
  });
});
