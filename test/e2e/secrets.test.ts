// Secrets (issue 3, item 7): the API key never shows up in --verbose output, error messages, --json
// stdout, `config list` / `config get`, or any file gatechat writes besides the config file that holds
// it; files are private; the key never follows a redirect to another origin. Every case is a real run
// of the built binary with a distinctive fake key, given through GATECHAT_API_KEY and through
// `config set api-key` (stdin), against loopback servers only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { closedPort } from '../helpers/ports.js';

const KEY = 'sk-SECRET-canary-7f3a9';
/** The key's distinctive middle: a masked form (`sk-…f3a9`) never contains it, any real leak does. */
const CORE = 'SECRET-canary';

const ctx = useGatewayAndUser();

// ---------------------------------------------------------------------------------------------
// helpers

interface Loopback {
  url: string;
  origin: string;
  seen: IncomingMessage['headers'][];
  close(): Promise<void>;
}

/** A tiny loopback server: records request headers, then lets `handler` answer. */
async function loopback(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<Loopback> {
  const seen: IncomingMessage['headers'][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(req.headers);
      handler(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v1`,
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The ctx.gateway that misbehaves the worst way: it echoes the caller's credentials in its answers. */
function echoTheKey(req: IncomingMessage, res: ServerResponse, body: string): void {
  const sent = String(req.headers.authorization ?? req.headers['x-api-key'] ?? '').replace(/^Bearer\s+/i, '');
  const model = (JSON.parse(body || '{}') as { model?: string }).model ?? '';
  const message = `Incorrect API key provided: ${sent}. Your key ${sent} was logged.`;
  const error = JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key', param: sent } });
  switch (model) {
    case 'echo-401':
      res.writeHead(401, { 'content-type': 'application/json', 'x-request-id': sent });
      return void res.end(error);
    case 'echo-500':
      res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': sent });
      return void res.end(error);
    case 'echo-html':
      res.writeHead(502, { 'content-type': 'text/html' });
      return void res.end(`<html><head><title>Bad key ${sent}</title></head><body><h1>${sent}</h1></body></html>`);
    case 'echo-stream-error':
      // Two words, then an error event that quotes the key, inside a 200 stream.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'two words' }, finish_reason: null }] })}\n\n`);
      res.write(`event: error\ndata: ${error}\n\n`);
      return void res.end();
    case 'echo-200-error':
      // A 200 whose JSON body is an error (OpenRouter style), for a request without streaming.
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ id: 'c', object: 'chat.completion', choices: [], error: { code: 401, message } }));
    default:
      res.writeHead(400, { 'content-type': 'application/json' });
      return void res.end(error);
  }
}

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

const configFile = () => join(ctx.user.configDir, 'config.json');

/** No file in the temp HOME holds the key — except config.json, whose job it is (and which is 0600). */
function expectNoKeyOnDisk(): string[] {
  const files = filesUnder(ctx.user.home).filter((path) => path !== configFile());
  for (const path of files) expect(readFileSync(path, 'latin1'), path).not.toContain(CORE);
  return files;
}

function expectNoKey(result: CliResult): void {
  expect(result.stdout).not.toContain(CORE);
  expect(result.stderr).not.toContain(CORE);
}

/** One stderr line, not counting --verbose diagnostics (`gatechat: > …`, `gatechat: < …`). */
function errorLines(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line !== '' && !/^gatechat: [<>] /.test(line));
}

type KeySource = 'env' | 'config';

/** Makes KEY this user's key, either way; returns the env for the runs. */
async function giveKey(source: KeySource): Promise<Record<string, string>> {
  if (source === 'env') return { ...ctx.user.env(), GATECHAT_API_KEY: KEY };
  const set = await runCli(['config', 'set', 'api-key'], { env: ctx.user.env(), stdin: `${KEY}\n` });
  expect(set.code, set.stderr).toBe(0);
  expectNoKey(set);
  return ctx.user.env();
}

// ---------------------------------------------------------------------------------------------

for (const source of ['env', 'config'] as const) {
  describe(`key from ${source === 'env' ? 'GATECHAT_API_KEY' : 'config set api-key (stdin)'}`, () => {
    it('--verbose shows the auth scheme, never the key, in bearer and x-api-key modes; saved files hold no key', async () => {
      const env = await giveKey(source);
      for (const [auth, line] of [
        ['bearer', 'gatechat: > Authorization: Bearer [redacted]'],
        ['x-api-key', 'gatechat: > x-api-key: [redacted]'],
      ] as const) {
        for (const api of ['chat', 'messages']) {
          const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '--api', api, '--auth', auth, '--verbose', 'hello'], { env });
          expect(result.code, result.stderr).toBe(0);
          expect(result.stdout).toBe('hello\n');
          expect(result.stderr).toContain(line);
          expectNoKey(result);
        }
      }
      // The key did go out, in the right header: the redaction is not a key that was never there.
      expect(ctx.gateway.requests.map((r) => r.headers.authorization ?? r.headers['x-api-key'])).toEqual([
        `Bearer ${KEY}`,
        `Bearer ${KEY}`,
        KEY,
        KEY,
      ]);
      // Four conversations were saved; none of their files carries the key.
      const files = expectNoKeyOnDisk();
      expect(files.filter((path) => path.includes('/conversations/') && path.endsWith('.jsonl'))).toHaveLength(4);
    });

    it('--json and --jsonl stdout never carry the key', async () => {
      const env = await giveKey(source);
      const json = await runCli(['--base-url', ctx.base, '-m', 'echo', '--json', '--verbose', 'hi'], { env });
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout).text).toBe('hi');
      expectNoKey(json);
      const jsonl = await runCli(['--base-url', ctx.base, '-m', 'echo', '--jsonl', '--verbose', 'hi'], { env });
      expect(jsonl.code, jsonl.stderr).toBe(0);
      expectNoKey(jsonl);
      expect(ctx.gateway.requests).toHaveLength(2);
      expectNoKeyOnDisk();
    });

    it('error messages never carry the key: 401, 500, connection refused (with --verbose)', async () => {
      const env = await giveKey(source);
      const unauthorized = await runCli(['--base-url', ctx.base, '-m', 'fail-401', '--verbose', 'hi'], { env });
      expect(unauthorized.code).toBe(3);
      expect(errorLines(unauthorized)).toHaveLength(1);
      expect(unauthorized.stderr).toMatch(/401/);
      expectNoKey(unauthorized);

      const serverError = await runCli(['--base-url', ctx.base, '-m', 'fail-500', '--retries', '0', '--verbose', 'hi'], { env });
      expect(serverError.code).toBe(6);
      expect(serverError.stderr).toMatch(/500/);
      expectNoKey(serverError);

      const port = await closedPort();
      const refused = await runCli(['--base-url', `http://127.0.0.1:${port}/v1`, '-m', 'echo', '--retries', '0', '--verbose', 'hi'], { env });
      expect(refused.code).toBe(7);
      expect(refused.stderr).toMatch(/refused/);
      expectNoKey(refused);
      // Failed turns are saved too (status error, with the message): still no key.
      expectNoKeyOnDisk();
    });

    // Sixteen runs of the binary one after another (the 60 s limit): 30 s was tight on a loaded 2-core machine.
    it('a ctx.gateway that echoes the key back in an HTTP error (JSON body, header, HTML page) never gets it shown or saved', async () => {
      const env = await giveKey(source);
      const echoing = await loopback(echoTheKey);
      try {
        const cases = [
          { model: 'echo-401', code: 3, args: [] as string[] },
          { model: 'echo-500', code: 6, args: ['--retries', '0'] },
          { model: 'echo-html', code: 6, args: ['--retries', '0'] },
          { model: 'echo-400', code: 4, args: ['--auth', 'x-api-key'] },
        ];
        for (const c of cases) {
          for (const mode of [[], ['--verbose'], ['--json'], ['--jsonl']]) {
            const result = await runCli(['--base-url', echoing.url, '-m', c.model, ...c.args, ...mode, 'hi'], { env });
            expect(result.code, `${c.model} ${mode.join(' ')}: ${result.stderr}`).toBe(c.code);
            expectNoKey(result);
            if (mode.length === 0) expect(errorLines(result), c.model).toHaveLength(1);
          }
        }
        // The echoing server really did get (and quote) the key every time.
        expect(echoing.seen.length).toBe(cases.length * 4);
        for (const headers of echoing.seen) expect(headers.authorization ?? headers['x-api-key']).toContain(KEY);
        // Failed turns are saved (status error, with the gateway's message): without the key.
        expect(filesUnder(ctx.user.dataDir).some((path) => readFileSync(path, 'utf8').includes('"status":"error"'))).toBe(true);
        expectNoKeyOnDisk();
      } finally {
        await echoing.close();
      }
    }, 60_000);

    // An error that arrives *inside* a 200 answer — an `event: error` in a stream, or a 200 JSON body
    // that is an error object — is redacted in src/client/chat-stream.ts before it reaches stderr,
    // --json/--jsonl or the saved conversation (HTTP-status errors are redacted in transport/errors.ts).
    for (const inBand of [
      { model: 'echo-stream-error', args: [] as string[], label: 'an error event inside a 200 stream' },
      { model: 'echo-200-error', args: ['--no-stream'], label: 'a 200 JSON body that is an error' },
    ]) {
      it(`a ctx.gateway that echoes the key back in ${inBand.label} never gets it shown or saved`, async () => {
        const env = await giveKey(source);
        const echoing = await loopback(echoTheKey);
        try {
          for (const mode of [[], ['--verbose'], ['--json'], ['--jsonl']]) {
            const result = await runCli(['--base-url', echoing.url, '-m', inBand.model, ...inBand.args, ...mode, 'hi'], { env });
            expect(result.code, result.stderr).toBe(6);
            expectNoKey(result);
          }
          expectNoKeyOnDisk();
        } finally {
          await echoing.close();
        }
      });
    }

    it('config list and config get show the key masked', async () => {
      const env = await giveKey(source);
      const list = await runCli(['config', 'list'], { env });
      expect(list.code, list.stderr).toBe(0);
      expectNoKey(list);
      const listJson = await runCli(['config', 'list', '--json'], { env });
      expect(listJson.code, listJson.stderr).toBe(0);
      expectNoKey(listJson);
      if (source === 'config') {
        expect(list.stdout).toContain('f3a9');
        const get = await runCli(['config', 'get', 'api-key'], { env });
        expect(get.code, get.stderr).toBe(0);
        expect(get.stdout).toContain('f3a9');
        expectNoKey(get);
        // The one place the key is stored: the config file, 0600 in a 0700 directory.
        expect(readFileSync(configFile(), 'utf8')).toContain(KEY);
        expect(statSync(configFile()).mode & 0o777).toBe(0o600);
        expect(statSync(ctx.user.configDir).mode & 0o777).toBe(0o700);
      }
    });
  });
}

describe('-H carrying the key', () => {
  it('an Authorization header given with -H is redacted in --verbose and in errors that echo it', async () => {
    const ok = await runCli(['--base-url', ctx.base, '-m', 'echo', '-H', `Authorization: Bearer ${KEY}`, '--verbose', 'hi'], { env: ctx.user.env() });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('gatechat: > Authorization: Bearer [redacted]');
    expectNoKey(ok);
    expect(ctx.gateway.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);

    const echoing = await loopback(echoTheKey);
    try {
      for (const model of ['echo-401', 'echo-500', 'echo-html']) {
        const result = await runCli(['--base-url', echoing.url, '-m', model, '--retries', '0', '-H', `Authorization: Bearer ${KEY}`, '--verbose', 'hi'], {
          env: ctx.user.env(),
        });
        expect(result.code).not.toBe(0);
        expectNoKey(result);
      }
      expect(echoing.seen).toHaveLength(3);
    } finally {
      await echoing.close();
    }
    expectNoKeyOnDisk();
  });
});

describe('-H headers that are not secrets', () => {
  it('x-portkey-provider is shown in --verbose and in a gateway error that quotes it; x-portkey-api-key is masked', async () => {
    const quoting = await loopback((req, res) => {
      const message = `provider ${String(req.headers['x-portkey-provider'])} rejected key ${String(req.headers['x-portkey-api-key'])}`;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
    });
    try {
      const result = await runCli(
        ['--base-url', quoting.url, '-m', 'm', '-H', 'x-portkey-provider: bedrock-eu', '-H', `x-portkey-api-key: ${KEY}`, '--verbose', 'hi'],
        { env: ctx.user.env() },
      );
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toContain('gatechat: > x-portkey-provider: bedrock-eu');
      expect(result.stderr).toContain('gatechat: > x-portkey-api-key: [redacted]');
      const error = errorLines(result).join('\n');
      expect(error).toContain('provider bedrock-eu rejected key [redacted]');
      expectNoKey(result);
      expect(quoting.seen[0]!['x-portkey-provider']).toBe('bedrock-eu');
    } finally {
      await quoting.close();
    }
  });
});

describe('file modes', () => {
  it('config file 0600 in a 0700 dir; conversation files 0600 in 0700 dirs', async () => {
    const set = await runCli(['config', 'set', 'model', 'echo'], { env: ctx.user.env() });
    expect(set.code, set.stderr).toBe(0);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(ctx.user.configDir).mode & 0o777).toBe(0o700);

    const run = await runCli(['--base-url', ctx.base, 'hi'], { env: { ...ctx.user.env(), GATECHAT_API_KEY: KEY } });
    expect(run.code, run.stderr).toBe(0);
    const dirs = [ctx.user.dataDir, join(ctx.user.dataDir, 'conversations')];
    for (const dir of dirs) expect(statSync(dir).mode & 0o777, dir).toBe(0o700);
    const files = filesUnder(ctx.user.dataDir);
    expect(files.length).toBeGreaterThan(0);
    for (const path of files) expect(statSync(path).mode & 0o777, path).toBe(0o600);
  });
});

describe('redirects', () => {
  // What the client does (src/transport/http.ts): it follows up to 5 redirects; on the first hop to
  // another origin (scheme, host or port differ) it drops the key (Authorization / x-api-key) and
  // every -H header, says so under --verbose, and goes on without credentials. Same-origin hops keep them.
  it('a 307 to another origin is followed without the key or -H headers; the first origin got them', async () => {
    const target = ctx.gateway; // the second origin: the dev ctx.gateway, on its own port
    const first = await loopback((req, res) => {
      res.writeHead(307, { location: `${target.url}${req.url}` });
      res.end();
    });
    try {
      for (const auth of ['bearer', 'x-api-key']) {
        ctx.gateway.requests.length = 0;
        first.seen.length = 0;
        const result = await runCli(['--base-url', first.url, '-m', 'echo', '--auth', auth, '-H', 'X-Team-Token: tt-private', '--verbose', 'moved'], {
          env: { ...ctx.user.env(), GATECHAT_API_KEY: KEY },
        });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toBe('moved\n');
        expect(result.stderr).toMatch(/another origin/);
        expectNoKey(result);
        // the first origin saw the credentials …
        expect(first.seen).toHaveLength(1);
        expect(first.seen[0]!.authorization ?? first.seen[0]!['x-api-key']).toContain(KEY);
        expect(first.seen[0]!['x-team-token']).toBe('tt-private');
        // … the second saw none of them.
        expect(ctx.gateway.requests).toHaveLength(1);
        const headers = ctx.gateway.requests[0]!.headers;
        expect(headers.authorization).toBeUndefined();
        expect(headers['x-api-key']).toBeUndefined();
        expect(headers['x-team-token']).toBeUndefined();
        expect(JSON.stringify(headers)).not.toContain(CORE);
      }
    } finally {
      await first.close();
    }
  });

  it('a same-origin redirect keeps the key (so the test above proves the drop, not a lost header)', async () => {
    const server = await loopback((req, res) => {
      if (req.url?.startsWith('/v1/')) {
        res.writeHead(307, { location: req.url.replace('/v1/', '/v2/') });
        return void res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'same origin' }, finish_reason: 'stop' }],
        }),
      );
    });
    try {
      const result = await runCli(['--base-url', server.url, '-m', 'm', '--no-stream', 'hi'], { env: { ...ctx.user.env(), GATECHAT_API_KEY: KEY } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('same origin\n');
      expect(server.seen).toHaveLength(2);
      for (const headers of server.seen) expect(headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await server.close();
    }
  });
});

describe('plain http', () => {
  // The warning for a non-loopback host is unit-tested in test/transport/plain-http-warning.test.ts:
  // tests never send traffic beyond 127.0.0.1.
  it('no warning for a key over http to 127.0.0.1', async () => {
    const result = await runCli(['--base-url', ctx.base, '-m', 'echo', '--no-save', 'hi'], { env: { ...ctx.user.env(), GATECHAT_API_KEY: KEY } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/plain http|warning/i);
    expect(ctx.gateway.requests).toHaveLength(1);
  });
});
