// SPEC §17 "Lifecycle" through the built binary and the dev gateway: --title and renames, history fork,
// -c --retry -m (both answers kept, the newest continued), history rm --older-than (refused without a
// terminal or --yes, asked on a pty, safe beside 20 runs continuing and creating conversations).
import { existsSync, readdirSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';
import { runInPty } from '../helpers/pty.js';

const ctx = useGatewayAndUser();

const gatechat = (args: string[]) => runCli(['--base-url', ctx.base, ...args], { env: ctx.user.env(), timeoutMs: 60_000 });
const history = (args: string[]) => runCli(['history', ...args], { env: ctx.user.env(), timeoutMs: 60_000 });
const listed = async () => JSON.parse((await history(['list', '--json'])).stdout) as Array<{ cid: string; title: string; turns: number }>;
const conversationsDir = () => join(ctx.user.dataDir, 'conversations');
const onDisk = () => readdirSync(conversationsDir()).filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -6)).sort();
const sentPrompts = () => ctx.gateway.requests.map((r) => ((r.body as { messages: Array<{ content: string }> }).messages.at(-1)?.content));

/** Conversations last used `days` ago: records dated then, and the file's mtime too. */
function seedOld(count: number, days: number, label: string): string[] {
  mkdirSync(conversationsDir(), { recursive: true, mode: 0o700 });
  const when = new Date(Date.now() - days * 86_400_000);
  const ts = when.toISOString();
  return Array.from({ length: count }, (_, i) => {
    const cid = `20200101-000000-${label}${String(i).padStart(2, '0')}`;
    const file = join(conversationsDir(), `${cid}.jsonl`);
    const records = [
      { type: 'meta', v: 1, cid, created: ts, model: 'echo', api: 'chat' },
      { type: 'user', turn: 't1', ts, content: `old question ${label}${i}` },
      { type: 'assistant', turn: 't1', ts, content: `old answer ${label}${i}`, reasoning: null, tool_calls: [], status: 'complete', finish_reason: 'stop', raw_finish_reason: null, usage: { input_tokens: 1, output_tokens: 1 }, model: 'echo', api: 'chat', params: { stream: true }, timings: { first_token_ms: 1, total_ms: 1 } },
    ];
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n', { mode: 0o600 });
    utimesSync(file, when, when);
    return cid;
  });
}

describe('titles', () => {
  it('--title names a conversation, the first prompt names the others, -c --title renames; history list TEXT finds titles', async () => {
    expect((await gatechat(['-m', 'echo', '--title', 'Trip  to\nLisbon', 'where to eat?'])).code).toBe(0);
    expect((await gatechat(['-m', 'echo', `${'long first line '.repeat(5)}\nsecond line`])).code).toBe(0);
    let all = await listed();
    expect(all.map((c) => c.title)).toEqual([`${'long first line '.repeat(5).slice(0, 59)}…`, 'Trip to Lisbon']);
    expect((await gatechat(['-m', 'echo', '-c', '--title', 'Renamed', 'more'])).code).toBe(0);
    all = await listed();
    expect(all.map((c) => [c.title, c.turns])).toEqual([['Renamed', 2], ['Trip to Lisbon', 1]]);
    const found = await history(['list', 'lisbon']);
    expect(found.stdout).toMatch(/1 turn\s+echo\s+Trip to Lisbon\n$/);
    const refused = await gatechat(['-m', 'echo', '--no-save', '--title', 'x', 'hi']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^gatechat: --title: .*--no-save/);
    expect(ctx.gateway.requests).toHaveLength(3);
  });
});

describe('history fork', () => {
  it('prints the new id; --cid NEW continues the copy (with the earlier turns) and never the original', async () => {
    expect((await gatechat(['-m', 'echo', 'the original question'])).code).toBe(0);
    const [original] = await listed();
    const fork = await history(['fork', original!.cid.slice(0, 17)]);
    expect(fork.code, fork.stderr).toBe(0);
    const copy = fork.stdout.trim();
    expect(copy).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(copy).not.toBe(original!.cid);
    const next = await gatechat(['--cid', copy, 'only in the fork']);
    expect(next.code, next.stderr).toBe(0);
    expect((ctx.gateway.requests.at(-1)!.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: 'the original question' },
      { role: 'assistant', content: 'the original question' },
      { role: 'user', content: 'only in the fork' },
    ]);
    const all = await listed();
    expect(all.map((c) => [c.cid, c.title, c.turns])).toEqual([
      [copy, 'the original question (fork)', 2],
      [original!.cid, 'the original question', 1],
    ]);
  });
});

describe('-c --retry -m', () => {
  it('asks the last prompt again with another model: both answers kept and shown; the next -c continues the newest', async () => {
    expect((await gatechat(['-m', 'echo', 'say something'])).code).toBe(0);
    const retried = await gatechat(['-c', '--retry', '-m', 'lorem-200', '--max-tokens', '5']);
    expect(retried.code, retried.stderr).toBe(0);
    const newest = retried.stdout.trim();
    expect(newest).not.toBe('say something');
    const retryBody = ctx.gateway.requests.at(-1)!.body as { model: string; messages: unknown[] };
    expect(retryBody.model).toBe('lorem-200');
    expect(retryBody.messages).toEqual([{ role: 'user', content: 'say something' }]);
    const shown = await history(['show']);
    expect(shown.stdout).toContain('[answer 1 of 2 · echo]\nsay something\n');
    expect(shown.stdout).toContain(`[answer 2 of 2 · lorem-200 · the one continued]\n${newest}`);
    expect((await gatechat(['-c', '-m', 'echo', 'and then?'])).code).toBe(0);
    expect((ctx.gateway.requests.at(-1)!.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: 'say something' },
      { role: 'assistant', content: newest },
      { role: 'user', content: 'and then?' },
    ]);
    // Nothing to ask again, or a new prompt with it: usage errors, nothing sent.
    const sent = ctx.gateway.requests.length;
    expect((await gatechat(['--retry', '-m', 'echo'])).stderr).toMatch(/^gatechat: --retry: .*-c/);
    const withPrompt = await gatechat(['-c', '--retry', 'new words']);
    expect([withPrompt.code, withPrompt.stderr]).toEqual([2, expect.stringMatching(/^gatechat: --retry: .*no new prompt/)]);
    expect(ctx.gateway.requests).toHaveLength(sent);
  });
});

describe('history rm --older-than', () => {
  it('piped without --yes: a usage error, nothing removed; with --yes: only the old ones go, the index with them', async () => {
    const old = seedOld(3, 40, 'a');
    expect((await gatechat(['-m', 'echo', 'recent'])).code).toBe(0);
    expect(await listed()).toHaveLength(4); // an index that holds the old ones
    const refused = await history(['rm', '--older-than', '30d']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^gatechat: history rm --older-than 30d: nothing removed: stdin is not a terminal.*--yes/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(onDisk()).toHaveLength(4);
    expect((await history(['rm', '--older-than', 'soon', '--yes'])).code).toBe(2);
    const removed = await history(['rm', '--older-than', '30d', '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toBe('gatechat: removed 3 conversations older than 30d\n');
    expect(onDisk().some((cid) => old.includes(cid))).toBe(false);
    expect((await listed()).map((c) => c.title)).toEqual(['recent']);
    expect((await history(['list', 'old question'])).stdout).toBe('');
  });

  it('on a terminal: lists them and asks; "n" keeps everything, "y" removes', async () => {
    const old = seedOld(2, 10, 'b');
    const env = ctx.user.env();
    const no = await runInPty(['history', 'rm', '--older-than', '1w'], { env, input: 'n\n' });
    expect(no.code).toBe(0);
    expect(no.raw).toContain(old[0]);
    expect(no.raw).toMatch(/remove these 2 conversations \(last used more than 1w ago\)\? \[y\/N\]/);
    expect(no.raw).toContain('nothing removed');
    expect(onDisk()).toEqual(old);
    const yes = await runInPty(['history', 'rm', '--older-than', '1w'], { env, input: 'y\n' });
    expect(yes.code).toBe(0);
    expect(yes.raw).toContain('removed 2 conversations older than 1w');
    expect(onDisk()).toEqual([]);
  });

  it('beside 20 runs continuing old conversations and creating new ones: nothing that should stay is lost, nothing half-removed', async () => {
    const untouched = seedOld(20, 40, 'c');
    const continued = seedOld(10, 40, 'd');
    const runs = await Promise.all([
      history(['rm', '--older-than', '30d', '--yes']),
      ...continued.map((cid) => gatechat(['--cid', cid, '-m', 'echo', `continue ${cid}`])),
      ...Array.from({ length: 10 }, (_, i) => gatechat(['-m', 'echo', `new conversation ${i}`])),
    ]);
    const [rm, ...writers] = runs;
    expect(rm!.code, rm!.stderr).toBe(0);
    for (const run of writers.slice(10)) expect(run.code, run.stderr).toBe(0);
    const all = await listed();
    const byCid = new Map(all.map((c) => [c.cid, c]));
    // Every conversation that was old and left alone is gone; every new one is there, whole.
    for (const cid of untouched) expect(byCid.has(cid)).toBe(false);
    expect(all.filter((c) => c.title.startsWith('new conversation')).map((c) => c.turns)).toEqual(Array(10).fill(1));
    continued.forEach((cid, i) => {
      const run = writers[i]!;
      if (run.code === 0) {
        // It wrote first: kept, with its new turn and answer.
        expect(byCid.get(cid)?.turns, cid).toBe(2);
      } else {
        // Removed first: the run said so and sent nothing.
        expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(new RegExp(`conversation ${cid}|no conversation with id ${cid}`))]);
        expect(byCid.has(cid)).toBe(false);
        expect(sentPrompts()).not.toContain(`continue ${cid}`);
      }
    });
    // The index lists exactly what is on disk, and no lock is left behind.
    expect(all.map((c) => c.cid).sort()).toEqual(onDisk());
    expect(readdirSync(conversationsDir()).filter((name) => !name.endsWith('.jsonl'))).toEqual([]);
    expect(existsSync(join(ctx.user.dataDir, 'history-index.json.lock'))).toBe(false);
  });
});
