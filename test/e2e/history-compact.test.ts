// `gatechat history compact [ID [INSTRUCTIONS…]]` (SPEC §17), the built binary against the dev gateway:
// the model (echo: it repeats the summarising instruction it was sent) summarises the conversation, the
// summary is appended as a `summary` record, the next `-c` sends it after the system prompt in place of
// the turns it covers — which stay on disk and in `history show` — and each failure is one line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { compactionPrompt, SUMMARY_LEAD } from '../../src/session/compaction.js';
import { savedAnswer } from '../helpers/conversation.js';

const ctx = useGatewayAndUser();
const gatechat = (args: string[]) => runCli(args, { env: ctx.user.env(), timeoutMs: 15_000 });
type Body = { model: string; messages: Array<{ role: string; content: string }> };
const bodies = () => ctx.gateway.requests.filter((r) => /\/(chat\/completions|messages)$/.test(r.path)).map((r) => r.body as Body);
const file = (cid: string) => join(ctx.user.dataDir, 'conversations', `${cid}.jsonl`);
const records = (cid: string) =>
  readFileSync(file(cid), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A saved conversation of `turns` turns ("question i" → "answer i") on `model`. */
function conversation(turns: number, model = 'echo', prompt = (i: number) => `question ${i}`, answer = (i: number) => `answer ${i}`): string {
  const store = new ConversationStore(ctx.user.dataDir);
  const cid = store.create({ model, api: 'chat', system: 'You are terse.' });
  for (let i = 1; i <= turns; i++) store.appendAssistant(cid, { ...savedAnswer(answer(i), { model }), turn: store.appendUser(cid, prompt(i)) });
  return cid;
}

describe('history compact', () => {
  it('writes a summary record; the next -c sends it instead of the turns, which history show still has', async () => {
    const cid = conversation(3);
    const run = await gatechat(['history', 'compact', '--base-url', ctx.base]);
    expect(run.code, run.stderr).toBe(0);
    // stdout: the summary; stderr: one line saying what it stands for.
    expect(run.stdout).toBe(`${compactionPrompt('')}\n`);
    expect(run.stderr).toMatch(new RegExp(`^gatechat: compacted ${cid}: turns 1–3 \\(about \\d+ tokens\\) are now a summary of about \\d+ tokens, sent in their place from now on\\n$`));
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]!.messages.map((m) => m.content)).toEqual(['You are terse.', 'question 1', 'answer 1', 'question 2', 'answer 2', 'question 3', 'answer 3', compactionPrompt('')]);
    const summary = records(cid).at(-1)!;
    expect(summary).toMatchObject({ type: 'summary', content: compactionPrompt(''), turns: 3, model: 'echo', api: 'chat' });
    expect(summary.through).toBe(records(cid).filter((r) => r.type === 'user').at(-1)!.turn);

    ctx.gateway.requests.length = 0;
    const next = await gatechat(['--base-url', ctx.base, '-c', 'question 4']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe('question 4\n');
    expect(next.stderr).toBe('');
    const sent = bodies()[0]!;
    expect(sent.messages).toEqual([
      { role: 'system', content: `You are terse.\n\n${SUMMARY_LEAD} ${compactionPrompt('')}` },
      { role: 'user', content: 'question 4' },
    ]);
    expect(JSON.stringify(sent)).not.toMatch(/question [123]|answer [123]/);

    const show = await gatechat(['history', 'show', cid]);
    expect(show.code, show.stderr).toBe(0);
    for (const line of ['> question 1', 'answer 1', '> question 3', 'answer 3', '> question 4']) expect(show.stdout).toContain(line);
    expect(show.stdout).toContain(`[summary of turns 1–3 · echo · sent in their place]\n${compactionPrompt('')}`);
    // The summary comes after the turns it covers, before the ones after it.
    expect(show.stdout.indexOf('[summary')).toBeGreaterThan(show.stdout.indexOf('answer 3'));
    expect(show.stdout.indexOf('[summary')).toBeLessThan(show.stdout.indexOf('> question 4'));
  });

  it('an id (or its start) and instructions; --json; -m asks another model; a second compaction covers everything so far', async () => {
    const cid = conversation(2);
    conversation(1); // the latest: not the one named
    const run = await gatechat(['history', 'compact', cid.slice(0, -1), 'keep', 'the', 'numbers', '--json', '--base-url', ctx.base, '-m', 'context-9000']);
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ id: cid, compacted: true, summary: compactionPrompt('keep the numbers'), turns: 2, model: 'context-9000', api: 'chat' });
    expect(answer.through).toEqual(expect.any(String));
    expect(answer.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(bodies()[0]!.model).toBe('context-9000');
    expect(records(cid).at(-1)).toMatchObject({ type: 'summary', instructions: 'keep the numbers', model: 'context-9000' });

    // A turn more, then compact again: the first summary is the input for the turns it covers.
    expect((await gatechat(['--base-url', ctx.base, '--cid', cid, 'question 3'])).code).toBe(0);
    ctx.gateway.requests.length = 0;
    const again = await gatechat(['history', 'compact', cid, '--json', '--base-url', ctx.base]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ turns: 3 });
    expect(bodies()[0]!.messages.map((m) => m.content)).toEqual([
      `You are terse.\n\n${SUMMARY_LEAD} ${compactionPrompt('keep the numbers')}`,
      'question 3',
      'question 3',
      compactionPrompt(''),
    ]);
  });

  it('on Messages the summary joins the top-level system and the messages start with the new prompt', async () => {
    const store = new ConversationStore(ctx.user.dataDir);
    const cid = store.create({ model: 'echo', api: 'messages', system: 'You are terse.' });
    store.appendAssistant(cid, { ...savedAnswer('answer 1', { api: 'messages' }), turn: store.appendUser(cid, 'question 1') });
    expect((await gatechat(['history', 'compact', '--base-url', ctx.base])).code).toBe(0);
    expect(ctx.gateway.requests[0]!.path).toBe('/v1/messages');
    ctx.gateway.requests.length = 0;
    const next = await gatechat(['--base-url', ctx.base, '-c', 'question 2']);
    expect(next.code, next.stderr).toBe(0);
    const body = ctx.gateway.requests[0]!.body as { system: string; messages: unknown[] };
    expect(body.system).toBe(`You are terse.\n\n${SUMMARY_LEAD} ${compactionPrompt('')}`);
    expect(body.messages).toEqual([{ role: 'user', content: 'question 2' }]);
  });

  it('nothing new to compact: one line, exit 0, nothing sent or written', async () => {
    const cid = conversation(1);
    expect((await gatechat(['history', 'compact', '--base-url', ctx.base])).code).toBe(0);
    ctx.gateway.requests.length = 0;
    const before = readFileSync(file(cid), 'utf8');
    const run = await gatechat(['history', 'compact', '--base-url', ctx.base]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`gatechat: nothing to compact in ${cid}: every turn is in its summary already\n`);
    expect(bodies()).toHaveLength(0);
    expect(readFileSync(file(cid), 'utf8')).toBe(before);
    const json = await gatechat(['history', 'compact', '--json', '--base-url', ctx.base]);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: cid, compacted: false, turns: 1 });
  });

  it('no conversation: exit 2, one line, nothing sent', async () => {
    const run = await gatechat(['history', 'compact', '--base-url', ctx.base]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('gatechat: history compact: there is no saved conversation yet\n');
    // Words that are not an id are instructions for the latest conversation: with none, the same line.
    const words = await gatechat(['history', 'compact', 'keep', 'it', 'short', '--base-url', ctx.base]);
    expect(words.code).toBe(2);
    expect(words.stderr).toBe('gatechat: history compact: there is no saved conversation yet\n');
    conversation(1);
    const unknown = await gatechat(['history', 'compact', '20991231-000000', '--base-url', ctx.base]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('gatechat: no conversation with id 20991231-000000: see gatechat history list\n');
    expect(bodies()).toHaveLength(0);
  });

  it('instructions without an id compact the latest conversation', async () => {
    conversation(2);
    const latest = conversation(1);
    const run = await gatechat(['history', 'compact', 'keep', 'it', 'short', '--base-url', ctx.base]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${compactionPrompt('keep it short')}\n`);
    expect(records(latest).at(-1)).toMatchObject({ type: 'summary', instructions: 'keep it short' });
  });

  it('a gateway failure is the usual error line and exit code; nothing is written', async () => {
    const cid = conversation(2);
    const before = readFileSync(file(cid), 'utf8');
    const run = await gatechat(['history', 'compact', '--base-url', ctx.base, '-m', 'fail-500', '--retries', '0']);
    expect(run.code).toBe(6);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^gatechat: .*500/);
    expect(run.stdout).toBe('');
    expect(readFileSync(file(cid), 'utf8')).toBe(before);
    const auth = await gatechat(['history', 'compact', '--base-url', ctx.base, '-m', 'fail-401']);
    expect(auth.code).toBe(3);
    expect(readFileSync(file(cid), 'utf8')).toBe(before);
  });

  it('connection options belong to compact alone: the other history actions still refuse them', async () => {
    conversation(1);
    for (const args of [
      ['history', 'show', '-m', 'echo'],
      ['history', 'list', '--base-url', ctx.base],
      ['history', 'rm', 'x', '--profile', 'work'],
    ]) {
      const run = await gatechat(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^gatechat: unknown option '(-m|--base-url|--profile)' \(see: gatechat history --help\)\n$/);
    }
    const refused = await gatechat(['-m', 'echo', 'history', 'show']);
    expect(refused.stderr).toBe('gatechat: -m, --model does not apply to "gatechat history" (see: gatechat history --help)\n');
    // Before `compact` they apply to it, as before any command.
    const carried = await gatechat(['--base-url', ctx.base, '-m', 'context-9000', 'history', 'compact']);
    expect(carried.code, carried.stderr).toBe(0);
    expect(bodies()[0]!.model).toBe('context-9000');
    const help = await gatechat(['history', '--help']);
    expect(help.stdout).toMatch(/compact \[options\] \[id\] \[instructions\.\.\.\]/);
  });

  it('a conversation too long for its model: compacted, the next -c fits in one request with nothing left out', async () => {
    const kites = (i: number) => `turn ${String(i).padStart(2, '0')}: ${'tell me more about the history of kites '.repeat(5)}`;
    // About 110 tokens a turn, 3 300 in all: more than the window.
    const cid = conversation(30, 'context-2000', kites, kites);
    const run = await gatechat(['history', 'compact', '--base-url', ctx.base]);
    expect(run.code, run.stderr).toBe(0);
    // The compaction request is fitted like any other (the window learned from the gateway's 400).
    expect(run.stderr).toMatch(/left out the \d+ oldest turns/);
    expect(records(cid).at(-1)).toMatchObject({ type: 'summary', turns: 30 });
    ctx.gateway.requests.length = 0;
    const next = await gatechat(['--base-url', ctx.base, '-c', 'and then?']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toBe('');
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]!.messages).toHaveLength(2);
  });
});
