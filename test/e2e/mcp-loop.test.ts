// MCP servers in the tool loop (SPEC §15): the built binary, the official filesystem reference server,
// the dev gateway's `agent` model over loopback HTTP, on both interfaces, one-shot and batch.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser({ userPer: 'file' });
const FS = join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const TAG = `GC_MCP_LOOP=${process.pid}-${Date.now()}`;
let dir: string;
let config: string;
beforeAll(() => {
  dir = join(ctx.user.home, 'files');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'note.txt'), 'hello from the note');
  // The server's environment carries the tag, so it and anything it starts can be counted afterwards.
  config = join(ctx.user.home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FS, dir], env: { [TAG.split('=')[0]!]: TAG.split('=')[1]! } } } }));
});

function gatechat(args: string[], options: { stdin?: string } = {}) {
  return runCli(['--base-url', ctx.base, ...args], { env: ctx.user.env(), stdin: options.stdin, timeoutMs: 40_000 });
}
const requests = () => ctx.gateway.requests.filter((r) => r.path.endsWith('/chat/completions') || r.path.endsWith('/messages'));

function tagged(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z') && `\0${readFileSync(`/proc/${name}/environ`, 'utf8')}`.includes(`\0${TAG}\0`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('MCP tools in the loop', () => {
  for (const api of ['chat', 'messages'] as const) {
    for (const stream of ['--stream', '--no-stream']) {
      it(`${api} ${stream}: the server's tools are offered, an allowed call runs through it, its result goes back; no server left`, async () => {
        const before = requests().length;
        const path = join(dir, 'note.txt');
        const result = await gatechat(['--no-save', '-m', 'agent', '--api', api, stream, '--mcp-config', config, '--allow', 'fs__read_text_file', `call fs__read_text_file {"path":"${path}"}`]);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toBe('results: hello from the note\n');
        expect(result.stderr).toMatch(/⚙ fs__read_text_file/);
        const sent = requests().slice(before);
        expect(sent).toHaveLength(2);
        const offered = JSON.stringify((sent[0]!.body as Record<string, unknown>).tools);
        expect(offered).toContain('fs__read_text_file');
        expect(offered).toContain('fs__write_file');
        expect(tagged()).toEqual([]);
      });
    }
  }

  it('a call --allow does not name is denied with one line naming --allow; the model is told; nothing is written', async () => {
    const target = join(dir, 'written.txt');
    const result = await gatechat(['--no-save', '-m', 'agent', '--mcp-config', config, `call fs__write_file {"path":"${target}","content":"x"}`]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/denied fs__write_file .*--allow 'fs__write_file'/);
    expect(result.stdout).toMatch(/declined/);
    expect(existsSync(target)).toBe(false);
  });

  it("a server's own allow (config set --mcp fs allow …) runs the call without --allow", async () => {
    expect((await runCli(['config', 'set', '--mcp', 'fsc', 'command', `${process.execPath} ${FS} ${dir}`], { env: ctx.user.env() })).code).toBe(0);
    expect((await runCli(['config', 'set', '--mcp', 'fsc', 'allow', 'read_*'], { env: ctx.user.env() })).code).toBe(0);
    try {
      const result = await gatechat(['--no-save', '-m', 'agent', `call fsc__read_text_file {"path":"${join(dir, 'note.txt')}"}`]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('results: hello from the note\n');
      const written = await gatechat(['--no-save', '-m', 'agent', `call fsc__write_file {"path":"${join(dir, 'w2.txt')}","content":"x"}`]);
      expect(written.stderr).toMatch(/denied fsc__write_file/);
      expect(existsSync(join(dir, 'w2.txt'))).toBe(false);
    } finally {
      await runCli(['config', 'unset', '--mcp', 'fsc'], { env: ctx.user.env() });
    }
  });

  it('config allow (top level, or a profile\'s in its place) runs the calls it names without --allow; a bad list is exit 2', async () => {
    const env = ctx.user.env();
    expect((await runCli(['config', 'set', 'allow', 'fs__read_*, fs__list_*'], { env })).code).toBe(0);
    expect((await runCli(['config', 'get', 'allow'], { env })).stdout).toBe('fs__read_*,fs__list_*\n');
    try {
      const read = await gatechat(['--no-save', '-m', 'agent', '--mcp-config', config, `call fs__read_text_file {"path":"${join(dir, 'note.txt')}"}`]);
      expect(read.code, read.stderr).toBe(0);
      expect(read.stdout).toBe('results: hello from the note\n');
      // A profile's allow replaces the top level's.
      expect((await runCli(['config', 'set', '--profile', 'strict', 'allow', 'fs__list_*'], { env })).code).toBe(0);
      const strict = await gatechat(['--no-save', '-p', 'strict', '-m', 'agent', '--mcp-config', config, `call fs__read_text_file {"path":"${join(dir, 'note.txt')}"}`]);
      expect(strict.stderr).toMatch(/denied fs__read_text_file/);
      const bad = await runCli(['config', 'set', 'allow', 'fs__read_*,,x'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/allow: expected tool names or globs separated by commas/);
    } finally {
      await runCli(['config', 'unset', 'allow'], { env });
    }
  });

  it('a template whose front matter names an MCP server and allow runs the call (-T); a bad allow is exit 2', async () => {
    const templates = join(ctx.user.env().GATECHAT_CONFIG_DIR!, 'templates');
    mkdirSync(templates, { recursive: true });
    const front = ['---', 'model: agent', 'allow: fs__read_text_file', 'mcp:', '  fs:', `    command: ${JSON.stringify(process.execPath)}`, `    args: [${JSON.stringify(FS)}, ${JSON.stringify(dir)}]`, '---'];
    writeFileSync(join(templates, 'reader.md'), [...front, 'call fs__read_text_file {"path":"{{file}}"}', ''].join('\n'));
    const result = await gatechat(['--no-save', '-T', 'reader', '-P', `file=${join(dir, 'note.txt')}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('results: hello from the note\n');
    writeFileSync(join(templates, 'broken.md'), ['---', 'allow: {a: 1}', '---', 'hi', ''].join('\n'));
    const broken = await gatechat(['--no-save', '-T', 'broken']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/template broken: allow must be a string or a list of strings/);
  });

  it('batch: every line runs its allowed call through the one server; denied ones are said per line', async () => {
    const input = join(ctx.user.home, 'lines.jsonl');
    writeFileSync(input, [`"call fs__read_text_file {\\"path\\":\\"${join(dir, 'note.txt')}\\"}"`, `"call fs__write_file {\\"path\\":\\"${join(dir, 'b.txt')}\\",\\"content\\":\\"x\\"}"`].join('\n') + '\n');
    const result = await gatechat(['batch', input, '-m', 'agent', '--mcp-config', config, '--allow', 'fs__read_*']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; status: string; text: string });
    expect(lines.find((l) => l.id === 1)?.text).toBe('results: hello from the note');
    expect(lines.find((l) => l.id === 2)?.text).toMatch(/declined/);
    expect(result.stderr).toMatch(/denied fs__write_file/);
    expect(existsSync(join(dir, 'b.txt'))).toBe(false);
    expect(tagged()).toEqual([]);
  });
});
