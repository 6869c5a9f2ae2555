// SPEC §20 "Terminal": sanitising is decided per output stream — a terminal's stderr is sanitised when
// stdout is piped (reasoning, compare mode, errors) — C1 controls are removed like C0 ones wherever text
// is drawn (the tool-call block included), and --json / --jsonl write C0, DEL and C1 as \u escapes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runInPty, visible } from '../helpers/pty.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { useLoopbackServers } from '../transport/loopback.js';

const ESC = '\u001B';
const BEL = '\u0007';
// C0 sequences and their C1 twins (CSI U+009B, OSC U+009D, ST U+009C), and DEL.
const HOSTILE = `A${ESC}]2;PWNED${BEL}B\u009B2JC\u009D52;c;PWNED\u009CD${ESC}[3JE\u007FF\u0085G`;
const SAFE_TEXT = 'ABCDEFG';
/** Any control character a terminal could act on (newline, tab and CR aside). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

const ctx = useGatewayAndUser();
const loopback = useLoopbackServers();

/** A Chat Completions stream: hostile reasoning, text, model name and tool call, then a clean end. */
function hostileGateway(options: { toolCall?: boolean } = {}) {
  return loopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: `m${ESC}]0;PWNED${BEL}\u009B2J`, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', reasoning_content: `think ${HOSTILE}` }));
    res.write(chunk({ content: `say ${HOSTILE}` }));
    if (options.toolCall) {
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ q: HOSTILE }) } }] }));
    }
    res.write(chunk({}, options.toolCall ? 'tool_calls' : 'stop'));
    res.end('data: [DONE]\n\n');
  });
}

/** What a terminal would act on: no escape sequence, no C1 control; the text itself still there. */
function expectDrawnSafely(raw: string, what: string) {
  expect(raw, `${what}: ${visible(raw)}`).not.toMatch(CONTROL);
  expect(raw, what).not.toContain('PWNED');
}

describe('stderr on a terminal while stdout is piped', () => {
  it('one-shot: reasoning reaches the terminal sanitised; the piped answer keeps its bytes', async () => {
    const server = await hostileGateway();
    const out = join(ctx.user.home, 'answer.txt');
    const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'm', '--no-save', 'hi'], { env: ctx.user.env(), stdoutTo: out });
    expect(code, visible(raw)).toBe(0);
    expect(raw).toContain(`think ${SAFE_TEXT}`);
    expectDrawnSafely(raw, 'stderr');
    expect(readFileSync(out, 'utf8')).toBe(`say ${HOSTILE}\n`);
  });

  it('compare mode: each model\'s reasoning reaches the terminal sanitised', async () => {
    const server = await hostileGateway();
    const out = join(ctx.user.home, 'answers.txt');
    const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'a', '-m', 'b', '--no-save', 'hi'], { env: ctx.user.env(), stdoutTo: out });
    expect(code, visible(raw)).toBe(0);
    expect(raw.split(`think ${SAFE_TEXT}`)).toHaveLength(3);
    expectDrawnSafely(raw, 'stderr');
    expect(readFileSync(out, 'utf8')).toContain(`say ${HOSTILE}\n`);
  });

  it('an error quoting the gateway reaches the terminal sanitised', async () => {
    const server = await loopback((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bad ${HOSTILE}`, type: 'invalid_request_error' } }));
    });
    const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'm', '--no-save', 'hi'], { env: ctx.user.env(), stdoutTo: join(ctx.user.home, 'none.txt') });
    expect(code, visible(raw)).toBe(4);
    expect(raw).toContain(`bad ${SAFE_TEXT}`);
    expectDrawnSafely(raw, 'error');
  });
});

describe('on a terminal', () => {
  it('the tool-call block draws no C1 control', async () => {
    const server = await hostileGateway({ toolCall: true });
    const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'm', '--no-save', 'hi'], { env: ctx.user.env() });
    expect(code, visible(raw)).toBe(0);
    expect(raw).toContain('tool call lookup');
    // Ink draws its own escape codes; none of the gateway's (the JSON shows them as \u escapes), no C1 at all.
    expect(raw, visible(raw)).not.toMatch(/[\u007F-\u009F]/);
    expect(raw, visible(raw)).not.toContain(`${ESC}]`);
    expect(raw).toContain('\\u009b2J');
  });

  it('TERM=dumb: the answer, reasoning, tool-call line and footer are drawn without controls', async () => {
    const server = await hostileGateway({ toolCall: true });
    const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'm', '--no-save', 'hi'], { env: { ...ctx.user.env(), TERM: 'dumb' } });
    expect(code, visible(raw)).toBe(0);
    expect(raw).toContain(`say ${SAFE_TEXT}`);
    expect(raw).toContain('"type":"tool_call"');
    // The tool-call line is JSON: the sequences are there as \u escapes (PWNED too), none as controls.
    expect(raw, visible(raw)).not.toMatch(CONTROL);
    expect(raw.split('\n').filter((line) => !line.includes('"tool_call"')).join('\n')).not.toContain('PWNED');
  });

  it('TERM=dumb with --schema: an answer that is not JSON is drawn without controls', async () => {
    const server = await hostileGateway();
    const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'm', '--no-save', '--schema', 'name', 'hi'], { env: { ...ctx.user.env(), TERM: 'dumb' } });
    expect(code, visible(raw)).toBe(9);
    expect(raw).toContain(`say ${SAFE_TEXT}`);
    expectDrawnSafely(raw, '--schema');
  });

  for (const flag of ['--json', '--jsonl']) {
    it(`${flag}: C0, DEL and C1 are \\u escapes, and the JSON still holds the text exactly`, async () => {
      const server = await hostileGateway({ toolCall: true });
      const { code, raw } = await runInPty(['--base-url', server.url, '-m', 'm', '--no-save', flag, 'hi'], { env: ctx.user.env() });
      expect(code, visible(raw)).toBe(0);
      // The escaped sequences stay in the JSON as text (PWNED included); no control character is drawn.
      expect(raw, visible(raw)).not.toMatch(CONTROL);
      const done = JSON.parse(raw.trim().split(/\r?\n/).at(-1)!);
      expect(done.text).toBe(`say ${HOSTILE}`);
      expect(done.reasoning).toBe(`think ${HOSTILE}`);
      expect(done.tool_calls[0].arguments).toEqual({ q: HOSTILE });
    });
  }
});

describe('piped', () => {
  it('--json and --jsonl write DEL and C1 as \\u escapes too (byte-safe should stdout be a terminal)', async () => {
    for (const flag of ['--json', '--jsonl']) {
      const server = await hostileGateway();
      const result = await runCli(['--base-url', server.url, '-m', 'm', '--no-save', flag, 'hi'], { env: ctx.user.env() });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout, flag).not.toMatch(CONTROL);
      expect(result.stdout).toContain('\\u009b2J');
      expect(result.stdout).toContain('\\u007f');
      expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!).text).toBe(`say ${HOSTILE}`);
    }
  });

  it('compare --json too', async () => {
    const server = await hostileGateway();
    const result = await runCli(['--base-url', server.url, '-m', 'a', '-m', 'b', '--no-save', '--json', 'hi'], { env: ctx.user.env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(CONTROL);
    expect(JSON.parse(result.stdout).map((r: { text: string }) => r.text)).toEqual([`say ${HOSTILE}`, `say ${HOSTILE}`]);
  });
});
