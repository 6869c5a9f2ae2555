// Fallbacks (SPEC §17), the built binary against the dev gateway: a model that fails before its first
// byte (429 after retries, 5xx, 529 overloaded, 404 unknown model) hands the same request to the next
// one; the answering model is named in --json (`model`, `fallback_from`), the footer and the history.
// Never after the answer began, never for other failures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { footerText } from '../../src/render/footer.js';

const ctx = useGatewayAndUser();
const gatechat = (args: string[]) => runCli(['--base-url', ctx.base, '--retries', '0', ...args], { env: ctx.user.env() });
const asked = () => ctx.gateway.requests.filter((r) => /\/(chat\/completions|messages)$/.test(r.path)).map((r) => (r.body as { model: string; messages: unknown[] }));

describe('fallbacks', () => {
  it('--fallback: 503, unknown model, 529 and 429 each hand the same request on; the one that answered is named', async () => {
    const run = await gatechat(['-m', 'fail-503', '--fallback', 'no-such-model,fail-529,fail-429,echo', '--json', 'hello there']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { text: string; model: string; fallback_from: string; cid: string };
    expect(result).toMatchObject({ text: 'hello there', model: 'echo', fallback_from: 'fail-503' });
    expect(asked().map((b) => b.model)).toEqual(['fail-503', 'no-such-model', 'fail-529', 'fail-429', 'echo']);
    // The same request each time, but for the model.
    for (const body of asked()) expect({ ...body, model: 'x' }).toEqual({ ...asked()[0], model: 'x' });
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^gatechat: fail-503: .*HTTP 503.*; trying the fallback no-such-model$/);
    expect(lines[3]).toMatch(/^gatechat: fail-429: .*HTTP 429.*; trying the fallback echo$/);
    // The history names the model that answered and the one asked for.
    const record = new ConversationStore(ctx.user.dataDir).records(result.cid).at(-1) as { model: string; fallback_from: string };
    expect(record).toMatchObject({ model: 'echo', fallback_from: 'fail-503' });
    // So does the usage ledger (SPEC §16): one line for the request that answered.
    const ledger = readFileSync(join(ctx.user.dataDir, 'usage.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(ledger.at(-1)).toMatchObject({ model: 'echo', fallback_from: 'fail-503', status: 'complete' });
  });

  it('a model entry\'s fallback (aliases resolved) applies to -m and to -c; no fallback field when the model answers', async () => {
    const env = { env: ctx.user.env() };
    expect((await runCli(['config', 'set', '--model', 'backup', 'model', 'echo'], env)).code).toBe(0);
    expect((await runCli(['config', 'set', '--model', 'main', 'model', 'fail-500'], env)).code).toBe(0);
    expect((await runCli(['config', 'set', '--model', 'fail-500', 'fallback', 'gone,backup'], env)).code).toBe(0);
    const run = await gatechat(['-m', 'main', '--json', 'first']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ model: 'echo', fallback_from: 'fail-500' });
    expect(asked().map((b) => b.model)).toEqual(['fail-500', 'gone', 'echo']);

    ctx.gateway.requests.length = 0;
    const next = await gatechat(['-c', '--json', 'second']);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ text: 'second', model: 'echo', fallback_from: 'fail-500' });

    const plain = await gatechat(['-m', 'echo', '--fallback', 'lorem-3', '--json', 'fine']);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('fallback_from');
  });

  it('never after the answer began, nor for a rejected request or bad credentials; the last failure is the exit code', async () => {
    const cut = await gatechat(['-m', 'drop-after-3', '--fallback', 'echo', 'hi']);
    expect(cut.code).toBe(8);
    const rejected = await gatechat(['-m', 'fail-400', '--fallback', 'echo', 'hi']);
    expect(rejected.code).toBe(4);
    const denied = await gatechat(['-m', 'fail-401', '--fallback', 'echo', 'hi']);
    expect(denied.code).toBe(3);
    expect(asked().map((b) => b.model)).toEqual(['drop-after-3', 'fail-400', 'fail-401']);
    const allDown = await gatechat(['-m', 'fail-503', '--fallback', 'fail-529', 'hi']);
    expect(allDown.code).toBe(6);
    expect(allDown.stderr).toMatch(/HTTP 529/);
  });

  it('--fallback refuses an empty name before sending', async () => {
    const run = await gatechat(['-m', 'echo', '--fallback', 'echo,,lorem-2', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^gatechat: --fallback: expected model ids or aliases separated by commas/);
    expect(asked()).toHaveLength(0);
  });
});

describe('the footer', () => {
  it('names the model that answered and the one it stood in for', () => {
    const outcome = {
      status: 'complete' as const,
      result: { text: '', reasoning: null, tool_calls: [], finish_reason: 'stop' as const, raw_finish_reason: null, usage: { input_tokens: 3, output_tokens: 2 }, model: 'echo', api: 'chat' as const, cid: null, fallback_from: 'fail-503' },
      timings: { firstTokenMs: 1, totalMs: 1200 },
    };
    expect(footerText(outcome, 'fail-503', 'chat')).toBe('echo (fallback from fail-503) · chat · in 3 / out 2 tokens · 1.2s');
  });
});
