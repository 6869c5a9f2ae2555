// SPEC §10: the piped path must not load Ink, React or the Markdown renderer, and --version must not
// load the HTTP stack. A hook records every file of dist/ the built binary loads and what its source
// contains — by content, not by file name: a static Ink import anywhere on the piped path would put
// Ink into whatever chunk the build names, and a name check would not see it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { makeUserDirs, repoRoot, runCli } from '../helpers/cli.js';

let gateway: RunningGateway;
const user = makeUserDirs();
const hook = join(user.home, 'record-loads.cjs');

// What marks a source as belonging to each library (strings the bundle keeps verbatim). The build is
// CommonJS: bin/code-cache.js reads each chunk with fs.readFileSync, and plain `node dist/cli.cjs` goes
// through Module.prototype._compile, so the hook (loaded with --require) sees both.
const HOOK_SOURCE = `
const fs = require('node:fs');
const Module = require('node:module');
const MARKERS = {
  react: /react\\.(transitional\\.)?element/,
  ink: /["']ink-(root|box|text)["']/,
  markdown: /marked\\(\\): input parameter/,
  // undici (its WebAssembly HTTP parser, llhttp, is compiled on every start that loads it).
  undici: /llhttp/,
  yaml: /YAMLParseError/,
  readability: /FLAG_STRIP_UNLIKELYS/,
  turndown: /TurndownService/,
  tools: /The user declined to run this tool call/,
  // An MCP client (gatechat's stdio one or the SDK's), the SDK's zod schemas (types.js: its base64 check's
  // message, zod's error class), and its HTTP transports (Streamable HTTP's session header).
  mcp: /notifications\\/initialized/,
  mcpSchemas: /Invalid Base64 string|ZodError/,
  mcpHttp: /mcp-session-id/,
};
const readFileSync = fs.readFileSync;
function record(file, source) {
  if (!/[\\\\/]dist[\\\\/]/.test(file)) return;
  const tags = Object.keys(MARKERS).filter((name) => MARKERS[name].test(source));
  fs.appendFileSync(process.env.GATECHAT_TEST_LOAD_LOG, \`LOADED \${file} [\${tags.join(',')}]\\n\`);
}
fs.readFileSync = function (file, ...rest) {
  const out = readFileSync.call(this, file, ...rest);
  if (typeof file === 'string' && file.endsWith('.cjs')) record(file, String(out));
  return out;
};
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  record(filename, content);
  return compile.call(this, content, filename);
};
`;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  writeFileSync(hook, HOOK_SOURCE);
});
afterAll(async () => {
  await gateway.close();
  user.cleanup();
});

interface Loaded {
  /** Path from `dist/` on, e.g. `dist/chunks/one-shot-AB12.cjs`. */
  file: string;
  tags: string[];
}

function parseLoads(stderr: string): Loaded[] {
  return stderr
    .split('\n')
    .map((line) => /^LOADED (\S+) \[([^\]]*)\]$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[1].includes('/dist/'))
    .map((m) => ({ file: m[1].slice(m[1].indexOf('/dist/') + 1), tags: m[2] === '' ? [] : m[2].split(',') }));
}

let logs = 0;
/** The environment for one run under the hook, and what that run loaded. */
function underHook() {
  const log = join(user.home, `loads-${logs++}.log`);
  return {
    env: { ...user.env(), NODE_OPTIONS: `--require=${hook}`, GATECHAT_TEST_LOAD_LOG: log },
    loaded: () => parseLoads(existsSync(log) ? readFileSync(log, 'utf8') : ''),
  };
}

async function loadsOf(args: string[], stdin?: string) {
  const hooked = underHook();
  const result = await runCli(args, { env: hooked.env, stdin });
  return { ...result, loaded: hooked.loaded() };
}

const tagged = (loaded: Loaded[], ...tags: string[]) => loaded.filter((l) => l.tags.some((t) => tags.includes(t)));

// Node's own modules a run loaded (process.moduleLoadList), written at exit by a --require hook.
const BUILTINS_HOOK_SOURCE = `
const { writeFileSync } = require('node:fs');
process.on('exit', () => writeFileSync(process.env.GATECHAT_TEST_BUILTINS_LOG, process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join('\\n')));
`;

describe('what each path loads', () => {
  it('a piped one-shot answer (stdin and a prompt) loads no Ink, React or Markdown code', async () => {
    const run = await loadsOf(['--base-url', `${gateway.url}/v1`, '-m', 'echo', '--no-save', 'and a prompt'], 'piped text');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('piped text\n\nand a prompt\n');
    // The request path was really taken (the answer above); a single direct request is Node's own node:http's.
    expect(run.loaded.map((l) => l.file)).toContain('dist/cli.cjs');
    expect(tagged(run.loaded, 'undici')).toEqual([]);
    expect(tagged(run.loaded, 'ink', 'react', 'markdown')).toEqual([]);
    // SPEC §18's libraries load only for their own inputs: templates (YAML), URLs (Readability, turndown).
    expect(tagged(run.loaded, 'yaml', 'readability', 'turndown')).toEqual([]);
    // SPEC §15: no tools, none of the tool loop's code.
    expect(tagged(run.loaded, 'tools')).toEqual([]);
  });

  it('-T loads the YAML parser but not the HTML libraries; -a URL loads the HTML libraries', async () => {
    const templates = join(user.configDir, 'templates');
    mkdirSync(templates, { recursive: true });
    writeFileSync(join(templates, 'hello.md'), '---\nmodel: echo\n---\nhello {{who}}');
    const template = await loadsOf(['--base-url', `${gateway.url}/v1`, '--no-save', '-T', 'hello', '-P', 'who=you'], '');
    expect(template.code, template.stderr).toBe(0);
    expect(template.stdout).toBe('hello you\n');
    expect(tagged(template.loaded, 'yaml')).not.toEqual([]);
    expect(tagged(template.loaded, 'readability', 'turndown', 'ink', 'markdown')).toEqual([]);

    const page = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>T</title><body><article><p>A page of text, long enough to read.</p></article></body></html>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
      const run = await loadsOf(['--base-url', `${gateway.url}/v1`, '-m', 'echo', '--no-save', '-a', url, 'q'], '');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('A page of text, long enough to read.');
      expect(tagged(run.loaded, 'readability')).not.toEqual([]);
      expect(tagged(run.loaded, 'turndown')).not.toEqual([]);
      expect(tagged(run.loaded, 'yaml', 'ink', 'markdown')).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => page.close(() => resolve()));
    }
  });

  it('a piped one-shot with a command tool does load the tool loop (so the check above can fail)', async () => {
    const tools = join(user.home, 'command-tools.json');
    writeFileSync(tools, JSON.stringify([{ type: 'function', function: { name: 'noop' }, 'x-command': 'true' }]));
    const run = await loadsOf(['--base-url', `${gateway.url}/v1`, '-m', 'echo', '--no-save', '--tools', tools, 'hi'], '');
    expect(run.code, run.stderr).toBe(0);
    expect(tagged(run.loaded, 'tools')).not.toEqual([]);
  });

  it("MCP servers started over stdio load gatechat's MCP client, not the SDK's schemas or its HTTP transports", async () => {
    const server = `fault=${process.execPath} ${join(repoRoot, 'test/fixtures/mcp/fault-server.mjs')}`;
    const run = await loadsOf(['tools', '--mcp', server], '');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/fault__/);
    expect(tagged(run.loaded, 'mcp')).not.toEqual([]);
    // The SDK's zod schemas cost ~21 ms of CPU while the servers boot (docs/benchmarks.md); they are in the
    // build (for URL servers), so this check can fail.
    expect(tagged(run.loaded, 'mcpSchemas')).toEqual([]);
    const chunks = join(repoRoot, 'dist/chunks');
    expect(readdirSync(chunks).some((f) => f.endsWith('.cjs') && /Invalid Base64 string|ZodError/.test(readFileSync(join(chunks, f), 'utf8')))).toBe(true);
    expect(tagged(run.loaded, 'mcpHttp')).toEqual([]);
  });

  it('a single request goes through node:http, never undici; a batch (one keep-alive pool) loads undici', async () => {
    // SPEC §10: the piped one-shot at most 1.15x a minimal node:http client. undici costs every start that
    // loads it the compile of its WebAssembly parser; a one-shot sends one request and needs no pool.
    const hookFile = join(user.home, 'record-builtins.cjs');
    const log = join(user.home, 'builtins.log');
    writeFileSync(hookFile, BUILTINS_HOOK_SOURCE);
    const run = await runCli(['--base-url', `${gateway.url}/v1`, '-m', 'lorem-20', '--no-save', 'hi'], {
      env: { ...user.env(), NODE_OPTIONS: `--require=${hookFile}`, GATECHAT_TEST_BUILTINS_LOG: log },
      stdin: '',
    });
    expect(run.code, run.stderr).toBe(0);
    const builtins = readFileSync(log, 'utf8').split('\n');
    expect(builtins).toContain('http');
    // undici's error paths need node:assert; node:http's request path does not.
    expect(builtins).not.toContain('assert');
    // node:module (createRequire) and node:timers/promises (a retry's wait) cost a one-shot ~1 ms at start.
    expect(builtins).not.toContain('module');
    expect(builtins).not.toContain('timers/promises');
    // node:os served only homedir(), which on POSIX is $HOME when set (src/config/home.ts); node:v8 loads
    // once the request is sent (its flags are set then), not with the one-shot chunk.
    if (process.platform !== 'win32') expect(builtins).not.toContain('os');
    expect(builtins.indexOf('v8')).toBeGreaterThan(builtins.indexOf('http'));

    const batch = await loadsOf(['batch', '--base-url', `${gateway.url}/v1`, '-m', 'echo', '-'], '{"prompt":"one"}\n{"prompt":"two"}\n');
    expect(batch.code, batch.stderr).toBe(0);
    expect(tagged(batch.loaded, 'undici')).not.toEqual([]);
  });

  it('a piped one-shot reads its prompt through stdin\'s descriptor: process.stdin\'s stream is never built', async () => {
    // For a pipe that stream is a net.Socket (~1.5 ms of every start); src/session/direct-stdin.ts.
    const hookFile = join(user.home, 'record-stdin.cjs');
    const log = join(user.home, 'stdin.log');
    writeFileSync(
      hookFile,
      `const { get } = Object.getOwnPropertyDescriptor(process, 'stdin');
Object.defineProperty(process, 'stdin', { configurable: true, enumerable: true, get() { require('node:fs').appendFileSync(process.env.GATECHAT_TEST_STDIN_LOG, 'stdin built\\n'); return get.call(this); } });`,
    );
    const run = await runCli(['--base-url', `${gateway.url}/v1`, '-m', 'echo', '--no-save', 'and words'], {
      env: { ...user.env(), NODE_OPTIONS: `--require=${hookFile}`, GATECHAT_TEST_STDIN_LOG: log },
      stdin: 'piped text',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('piped text\n\nand words\n');
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
  });

  // process.stdout and process.stderr are streams Node builds when the property is first read (for a pipe a
  // net.Socket: stdout 1.4–2 ms, stderr ~0.1 ms of the main thread), which the minimal node:http client of
  // SPEC §10 builds only at its first write. Built at start, they held back the request; src/cli/std-streams.ts.
  async function streamsOrder(args: string[], stdin: string) {
    const hookFile = join(user.home, 'record-streams.cjs');
    const log = join(user.home, `streams-${logs++}.log`);
    writeFileSync(
      hookFile,
      `const fs = require('node:fs');
const net = require('node:net');
const note = (line) => fs.appendFileSync(process.env.GATECHAT_TEST_STREAMS_LOG, line + '\\n');
for (const name of ['stdout', 'stderr']) {
  const { get } = Object.getOwnPropertyDescriptor(process, name);
  let built = false;
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get() { if (!built) { built = true; note(name + ' built'); } return get.call(this); } });
}
// node:http writes the request on the socket it connects; an output stream (a pipe's net.Socket) is never connected.
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const writeGeneric = this._writeGeneric;
  let written = false;
  this._writeGeneric = function (...rest) { if (!written) { written = true; note('request written'); } return writeGeneric.apply(this, rest); };
  this.once('data', () => note('answer arrives'));
  return connect.apply(this, args);
};`,
    );
    const run = await runCli(args, { env: { ...user.env(), NODE_OPTIONS: `--require=${hookFile}`, GATECHAT_TEST_STREAMS_LOG: log }, stdin });
    expect(run.code, run.stderr).toBe(0);
    return { ...run, order: readFileSync(log, 'utf8').trim().split('\n') };
  }

  it('a piped one-shot builds process.stdout and process.stderr only after its request is written', async () => {
    const run = await streamsOrder(['--base-url', `${gateway.url}/v1`, '-m', 'echo', '--no-save', 'and words'], 'piped text');
    expect(run.stdout).toBe('piped text\n\nand words\n');
    expect(run.order[0]).toBe('request written');
    // Node itself reads process.stderr when it closes a socket (net.js _destroy: `this !== process.stderr`),
    // here the request's once the answer is in: stderr is built then, or not at all.
    const built = run.order.filter((line) => line.endsWith(' built')).sort();
    expect(built).toEqual(built.length > 1 ? ['stderr built', 'stdout built'] : ['stdout built']);
  });

  it('a piped one-shot builds process.stdout while the gateway works on its request, before the answer arrives', async () => {
    // slow-150 without streaming: the whole answer after 2 × 150 ms. The stream is built in that wait, not
    // after the first byte (on the piped path: the answer's first write).
    const run = await streamsOrder(['--base-url', `${gateway.url}/v1`, '-m', 'slow-150', '--max-tokens', '2', '--no-stream', '--no-save', 'hi'], '');
    expect(run.stdout).toBe('Lorem ipsum\n');
    expect(run.order.slice(0, 3)).toEqual(['request written', 'stdout built', 'answer arrives']);
  });

  it.runIf(process.platform === 'linux')("a piped one-shot starts no thread beyond node's own: the prompt is read without libuv's thread pool", async () => {
    // An asynchronous fs.read starts the pool's four threads first: 1–3 ms before the request of every
    // piped one-shot (src/session/direct-stdin.ts reads a pipe with stderr not a terminal synchronously).
    const hookFile = join(user.home, 'record-threads.cjs');
    writeFileSync(
      hookFile,
      `process.on('exit', () => require('node:fs').writeFileSync(process.env.GATECHAT_TEST_THREADS_LOG, String(require('node:fs').readdirSync('/proc/self/task').length)));`,
    );
    const threadsOf = async (run: (env: NodeJS.ProcessEnv) => Promise<{ code: number | null; stderr: string }>) => {
      const log = join(user.home, `threads-${logs++}.log`);
      const result = await run({ ...user.env(), NODE_OPTIONS: `--require=${hookFile}`, GATECHAT_TEST_THREADS_LOG: log });
      expect(result.code, result.stderr).toBe(0);
      return Number(readFileSync(log, 'utf8'));
    };
    const node = await threadsOf(
      (env) =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', '0'], { env: { ...process.env, ...env }, stdio: 'ignore' });
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stderr: '' }));
        }),
    );
    const oneShot = await threadsOf((env) => runCli(['--base-url', `${gateway.url}/v1`, '-m', 'echo', '--no-save', 'and words'], { env, stdin: 'piped text' }));
    expect(oneShot).toBe(node);
  });

  it('a piped one-shot that saves its conversation stamps its records without loading the local time zone', async () => {
    // V8 loads the time zone (ICU reads /etc/localtime) at a process's first Date#toISOString, though its
    // text is UTC: ~0.3 ms of every one-shot, for the ledger line and the conversation's records.
    const hookFile = join(user.home, 'record-iso.cjs');
    const log = join(user.home, 'iso.log');
    writeFileSync(
      hookFile,
      `const toISOString = Date.prototype.toISOString;
Date.prototype.toISOString = function () { require('node:fs').appendFileSync(process.env.GATECHAT_TEST_ISO_LOG, new Error().stack.split('\\n')[2] + '\\n'); return toISOString.call(this); };`,
    );
    const run = await runCli(['--base-url', `${gateway.url}/v1`, '-m', 'echo', 'stamped'], {
      env: { ...user.env(), NODE_OPTIONS: `--require=${hookFile}`, GATECHAT_TEST_ISO_LOG: log },
      stdin: '',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('stamped\n');
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
    // The records are stamped all the same: the ledger line and the conversation's, in toISOString's form.
    const ledger = readFileSync(join(user.dataDir, 'usage.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { ts: string });
    expect(ledger.at(-1)!.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(ledger.at(-1)!.ts) - Date.now())).toBeLessThan(60_000);
  });

  it('--version through the shim loads nothing of the bundle', async () => {
    const run = await loadsOf(['--version']);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.loaded).toEqual([]);
  });

  it('--version of the bundle itself (no shim) loads neither the HTTP stack nor the UI', async () => {
    const hooked = underHook();
    const result = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.cjs'), '--version'], { env: { ...process.env, ...hooked.env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ stdout, stderr, code }));
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const loaded = hooked.loaded();
    expect(loaded.map((l) => l.file)).toContain('dist/cli.cjs');
    expect(tagged(loaded, 'undici', 'ink', 'react', 'markdown')).toEqual([]);
  });

  it('the bundle holds React\'s production builds only, chosen at build time', () => {
    // React picks its development build at run time when NODE_ENV is unset: slower, and it keeps every
    // render's props in performance measures that are never cleared (the heap grew ~10 MB/s under an
    // endless answer on a terminal). The build sets NODE_ENV, so neither the choice nor the build remains.
    const sources = readdirSync(join(repoRoot, 'dist', 'chunks'))
      .filter((f) => f.endsWith('.cjs'))
      .map((f) => readFileSync(join(repoRoot, 'dist', 'chunks', f), 'utf8'));
    expect(sources.some((source) => /react\.(transitional\.)?element/.test(source))).toBe(true);
    for (const source of sources) {
      expect(source).not.toContain('process.env.NODE_ENV');
      expect(source).not.toContain('Each child in a list should have a unique');
    }
  });

  it('the markers do recognise Ink, React, Markdown and HTTP code (so the checks above can fail)', async () => {
    // Import every chunk of the bundle under the same hook: each library must be found somewhere.
    const chunks = readdirSync(join(repoRoot, 'dist', 'chunks')).filter((f) => f.endsWith('.cjs'));
    const script = `for (const f of ${JSON.stringify(chunks)}) { try { require('./dist/chunks/' + f); } catch {} }`;
    const hooked = underHook();
    const result = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', script], { cwd: repoRoot, env: { ...process.env, ...hooked.env } });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', () => resolve(stderr));
    });
    const loaded = hooked.loaded();
    for (const tag of ['ink', 'react', 'markdown', 'undici', 'yaml', 'readability', 'turndown']) expect(tagged(loaded, tag), tag).not.toEqual([]);
  });
});
