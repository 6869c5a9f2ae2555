// Secrets against an echoing neighbour (SPEC §20 "Secrets", issue 15 point 6, issue 22 point 6): a gateway
// or a proxy that quotes the credentials it was sent — JSON-escaped the way PHP and Python write them, or
// base64 as a Basic value carries them — never gets them shown (errors, -v, --json) or saved. Real runs of
// the built binary against a credential-echoing server on loopback (test/helpers/credential-echo.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { escapeLikePhp, startCredentialEcho, type CredentialEcho } from '../helpers/credential-echo.js';

const ctx = useGatewayAndUser();
const echoes: CredentialEcho[] = [];

async function echo(): Promise<CredentialEcho> {
  const server = await startCredentialEcho();
  echoes.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(echoes.splice(0).map((server) => server.close()));
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** Every form of a leak: each needle, and each needle JSON-escaped once and twice. */
function forms(needles: string[]): string[] {
  return [...new Set(needles.flatMap((n) => [n, escapeLikePhp(n), escapeLikePhp(escapeLikePhp(n)), JSON.stringify(n).slice(1, -1)]))];
}

function expectNothingOf(needles: string[], result: CliResult, label: string): void {
  for (const needle of forms(needles)) {
    expect(result.stdout, `${label}: stdout holds ${needle}`).not.toContain(needle);
    expect(result.stderr, `${label}: stderr holds ${needle}`).not.toContain(needle);
  }
}

/** No file in the temp HOME holds any form of them — except config.json when it holds the key by design. */
function expectNothingOnDisk(needles: string[], exceptConfig = false): string[] {
  const configFile = join(ctx.user.configDir, 'config.json');
  const files = filesUnder(ctx.user.home).filter((path) => !(exceptConfig && path === configFile));
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    for (const needle of forms(needles)) expect(text, `${path} holds ${needle}`).not.toContain(needle);
  }
  return files;
}

/** Each answer shape the echo server has, with the exit code gatechat gives it. */
const SHAPES = [
  { model: 'json-error', code: 6 },
  { model: 'stream-error', code: 6 },
  { model: 'html', code: 6 },
];
const MODES = [[], ['--verbose'], ['--json']];

describe('a key echoed JSON-escaped', () => {
  // `/`, `"`, `\` and a Latin-1 letter: each is written differently by a JSON encoder (`\/`, `\"`, `\\`,
  // `\u00e9`), and each can be sent in an HTTP header.
  const KEY = 'sk-ESCcanary/"\\\u00e9-7f3a';
  const CORE = 'ESCcanary';

  it('is redacted in errors, -v, --json and saved conversations, in every escaped form', async () => {
    const server = await echo();
    const env = { ...ctx.user.env(), GATECHAT_API_KEY: KEY };
    for (const shape of SHAPES) {
      for (const mode of MODES) {
        const result = await runCli(['--base-url', `${server.url}/v1`, '-m', shape.model, '--retries', '0', ...mode, 'hi'], { env });
        const label = `${shape.model} ${mode.join(' ')}`;
        expect(result.code, `${label}: ${result.stderr}`).toBe(shape.code);
        expect(result.stderr + result.stdout, label).not.toContain(CORE);
        expectNothingOf([KEY], result, label);
      }
    }
    // The key did go out, whole, every time: what was masked is what a gateway really echoes.
    expect(server.seen).toHaveLength(SHAPES.length * MODES.length);
    for (const headers of server.seen) expect(headers.authorization).toBe(`Bearer ${KEY}`);
    const files = expectNothingOnDisk([KEY]);
    expect(files.some((path) => path.endsWith('.jsonl') && readFileSync(path, 'utf8').includes('"status":"error"'))).toBe(true);
    for (const path of files) expect(readFileSync(path, 'utf8'), path).not.toContain(CORE);
  });
});

describe('proxy credentials', () => {
  const USER = 'alice';
  // Percent-encoded in the URL (`%2F`, `%40`): what is sent, and echoed, is the decoded password.
  const PASSWORD = 'pa/ss@PXcanary-9';
  const CORE = 'PXcanary';
  const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
  const proxyUrl = (server: CredentialEcho) => `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}`;
  // The gateway behind the proxy: never reached, the proxy answers itself.
  const target = 'http://127.0.0.1:9/v1';

  for (const how of ['HTTP_PROXY', '--proxy', 'config set proxy'] as const) {
    it(`given by ${how}: the password, user:password and its base64 are never shown or saved`, async () => {
      const server = await echo();
      let env: Record<string, string> = ctx.user.env();
      let args: string[] = [];
      if (how === 'HTTP_PROXY') env = { ...env, HTTP_PROXY: proxyUrl(server) };
      if (how === '--proxy') args = ['--proxy', proxyUrl(server)];
      if (how === 'config set proxy') {
        const set = await runCli(['config', 'set', 'proxy', proxyUrl(server)], { env });
        expect(set.code, set.stderr).toBe(0);
      }
      for (const shape of SHAPES) {
        for (const mode of MODES) {
          const result = await runCli(['--base-url', target, '-m', shape.model, '--retries', '0', ...args, ...mode, 'hi'], { env });
          const label = `${shape.model} ${mode.join(' ')}`;
          expect(result.code, `${label}: ${result.stderr}`).toBe(shape.code);
          expect(result.stderr + result.stdout, label).not.toContain(CORE);
          expectNothingOf([PASSWORD, `${USER}:${PASSWORD}`, BASIC], result, label);
        }
      }
      // The proxy did get the credentials each time, in the header it echoes.
      expect(server.seen).toHaveLength(SHAPES.length * MODES.length);
      for (const headers of server.seen) expect(headers['proxy-authorization']).toBe(`Basic ${BASIC}`);
      // config.json holds the proxy URL by design (the user's own setting, 0600); nothing else does.
      expectNothingOnDisk([PASSWORD, `${USER}:${PASSWORD}`, BASIC], how === 'config set proxy');
    });
  }
});
