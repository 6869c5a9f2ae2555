// Where MCP servers are described (SPEC §15): flags, the mcpServers file form, config entries, names.
import { describe, expect, it } from 'vitest';
import { mergeServers, parseMcpConfigFile, parseMcpFlag, setServerKey, splitCommandLine } from '../../src/tools/mcp/servers.js';
import { modelFacingNames } from '../../src/tools/mcp/tool-names.js';

describe('splitCommandLine', () => {
  it('splits words as a shell would, without expanding anything', () => {
    expect(splitCommandLine(`npx -y @modelcontextprotocol/server-filesystem '/my dir' "a \\"b\\"" c\\ d $HOME`, 'x')).toEqual([
      'npx', '-y', '@modelcontextprotocol/server-filesystem', '/my dir', 'a "b"', 'c d', '$HOME',
    ]);
    expect(splitCommandLine(`  a   ''  b `, 'x')).toEqual(['a', '', 'b']);
  });
  it('an unterminated quote is a usage error naming where', () => {
    expect(() => splitCommandLine(`a 'b`, '--mcp fs')).toThrow(/--mcp fs: unterminated '/);
    expect(() => splitCommandLine(`a "b`, '--mcp fs')).toThrow(/unterminated "/);
  });
});

describe('--mcp name=<command line|URL>', () => {
  it('a command line is stdio, a URL is HTTP', () => {
    expect(parseMcpFlag('fs=npx -y server .')).toEqual({ name: 'fs', command: 'npx', args: ['-y', 'server', '.'] });
    expect(parseMcpFlag('web=https://mcp.example.com/mcp')).toEqual({ name: 'web', url: 'https://mcp.example.com/mcp' });
  });
  it('no name, a bad name or nothing after = is refused with the form to use', () => {
    expect(() => parseMcpFlag('npx server')).toThrow(/expected name=<command line\|URL>/);
    expect(() => parseMcpFlag('my fs=npx')).toThrow(/server name "my fs"/);
    expect(() => parseMcpFlag('fs=')).toThrow(/no command line or URL/);
  });
});

describe('--mcp-config: the mcpServers form other clients use', () => {
  it('a Claude Desktop file works as it is', () => {
    const file = JSON.stringify({
      mcpServers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'], env: { DEBUG: '1' } },
        remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
        old: { type: 'sse', url: 'https://old.example.com/sse' },
        off: { command: 'x', disabled: true },
      },
    });
    expect(parseMcpConfigFile(file, 'f.json')).toEqual([
      { name: 'filesystem', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'], env: { DEBUG: '1' } },
      { name: 'remote', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
      { name: 'old', url: 'https://old.example.com/sse', transport: 'sse' },
      { name: 'off', command: 'x', args: [], enabled: false },
    ]);
  });
  it('bad files are one usage error naming the file and the server', () => {
    expect(() => parseMcpConfigFile('{', 'f.json')).toThrow(/--mcp-config f.json: not valid JSON/);
    expect(() => parseMcpConfigFile('{"mcpServers":{"a":{}}}', 'f.json')).toThrow(/mcpServers.a: needs "command" .* or "url"/);
    expect(() => parseMcpConfigFile('{"mcpServers":{"a":{"command":"x","args":"y"}}}', 'f.json')).toThrow(/mcpServers.a.args: must be a list of strings/);
    expect(() => parseMcpConfigFile('{"mcpServers":{"a":{"url":"ftp://x"}}}', 'f.json')).toThrow(/not an http\(s\) URL/);
  });
});

describe('merging and config entries', () => {
  it('a later description of a name replaces an earlier one; disabled servers are left out', () => {
    const merged = mergeServers([{ name: 'fs', command: 'a' }, { name: 'db', command: 'b' }], [{ name: 'fs', url: 'http://127.0.0.1:1/' }], [{ name: 'db', command: 'b', enabled: false }]);
    expect(merged).toEqual([{ name: 'fs', url: 'http://127.0.0.1:1/' }]);
  });
  it('config set --mcp: command first; env, headers and allow add; a url replaces the command', () => {
    expect(() => setServerKey(undefined, 'fs', 'env', 'A=1')).toThrow(/set "command" or "url" of fs first/);
    let stored = setServerKey(undefined, 'fs', 'command', 'npx -y server .');
    stored = setServerKey(stored, 'fs', 'env', 'A=1');
    stored = setServerKey(stored, 'fs', 'env', 'B=2');
    stored = setServerKey(stored, 'fs', 'allow', 'read_*, list_*');
    stored = setServerKey(stored, 'fs', 'allow', 'read_*');
    expect(stored).toEqual({ command: 'npx -y server .', env: { A: '1', B: '2' }, allow: ['read_*', 'list_*'] });
    expect(setServerKey(stored, 'fs', 'url', 'http://127.0.0.1:9/mcp')).toEqual({ url: 'http://127.0.0.1:9/mcp', env: { A: '1', B: '2' }, allow: ['read_*', 'list_*'] });
    expect(() => setServerKey(stored, 'fs', 'enabled', 'yes')).toThrow(/true or false/);
    expect(() => setServerKey(stored, 'fs', 'colour', 'x')).toThrow(/unknown key/);
  });
});

describe('model-facing names', () => {
  it('<server>__<tool>, only [A-Za-z0-9_-], at most 64 characters, unique', () => {
    const long = 'a'.repeat(80);
    const names = modelFacingNames([
      { server: 'fs', tool: 'read.file' },
      { server: 'fs', tool: 'read file' },
      { server: 'x', tool: long },
      { server: 'x', tool: `${long}b` },
    ]);
    expect(names[0]).toBe('fs__read_file');
    expect(names[1]).toBe('fs__read_file_2');
    expect(names[2]).toHaveLength(64);
    expect(names[3]).toHaveLength(64);
    expect(new Set(names).size).toBe(4);
    expect(names.every((n) => /^[A-Za-z0-9_-]+$/.test(n))).toBe(true);
  });
});
