// /compact and `history compact` (SPEC §17): a summary of the turns so far, stored as a `summary`
// record, replaces those turns in every later request — as a paragraph after the system prompt, the one
// place both interfaces take text that is not a turn. The turns stay in the file. Requests are built
// here without sending (Conversation.request()) and compactions run against the dev gateway's `echo`
// model over loopback, whose answer (the summarising instruction, echoed) shows what was asked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/server.js';
import { openConversation, type ConversationDeps } from '../../src/session/conversation.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { compactionEnd, compactionPrompt, SUMMARY_LEAD, systemWithSummary } from '../../src/session/compaction.js';
import { buildMessagesRequest } from '../../src/protocol/anthropic-messages.js';
import { buildChatRequest } from '../../src/protocol/openai-chat.js';
import { conversationDeps, drainTurn, savedAnswer, useGatewayAndStore } from '../helpers/conversation.js';

let gateway: RunningGateway;
let dir: string;
let store: ConversationStore;

useGatewayAndStore('gatechat-compact-', (made) => ({ gateway, dir, store } = made));

/** A saved conversation of `turns` echoed turns ("prompt i" → "prompt i"). */
function saved(turns: number, system: string | null = 'Be brief.', model = 'echo'): string {
  const cid = store.create({ model, api: 'chat', system });
  for (let i = 1; i <= turns; i++) store.appendAssistant(cid, { ...savedAnswer(`answer ${i}`), turn: store.appendUser(cid, `prompt ${i}`) });
  return cid;
}

const resume = (cid: string, extra: Partial<ConversationDeps> = {}) => {
  const loaded = store.load(cid);
  const deps = conversationDeps(gateway.url, store, loaded.settings.model, extra);
  return openConversation({ ...deps, settings: { ...deps.settings, system: loaded.settings.system ?? undefined }, resume: loaded, ...extra });
};

const records = (cid: string) =>
  readFileSync(join(dir, 'conversations', `${cid}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the pure parts', () => {
  it('the summary follows the system prompt, or stands alone', () => {
    expect(systemWithSummary('Be brief.', 'We spoke of kites.')).toBe(`Be brief.\n\n${SUMMARY_LEAD} We spoke of kites.`);
    expect(systemWithSummary(undefined, 'We spoke of kites.')).toBe(`${SUMMARY_LEAD} We spoke of kites.`);
    expect(systemWithSummary('Be brief.', undefined)).toBe('Be brief.');
  });

  it('the user\'s instructions follow the fixed summarising instruction', () => {
    expect(compactionPrompt('')).toMatch(/^Summarise the conversation so far/);
    expect(compactionPrompt('keep the numbers')).toMatch(/\n\nInstructions for the summary: keep the numbers$/);
  });

  const turn = (text: string, calls = 0) => ({
    prompt: 'p',
    status: 'complete' as const,
    result: { text, reasoning: null, tool_calls: Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, name: 'f', arguments: {} })), finish_reason: null, raw_finish_reason: null, usage: { input_tokens: null, output_tokens: null }, model: null, api: 'chat' as const, cid: null },
  });

  it('covers every turn so far, but never a tool call whose result has not come yet; nothing new: null', () => {
    expect(compactionEnd([turn('a'), turn('b')], 0)).toBe(2);
    expect(compactionEnd([turn('a'), turn('b')], 2)).toBeNull();
    expect(compactionEnd([], 0)).toBeNull();
    // The last answer asked for a tool: it stays a turn, so its result still answers it.
    expect(compactionEnd([turn('a'), turn('', 1)], 0)).toBe(1);
    expect(compactionEnd([turn('', 1)], 0)).toBeNull();
    // A turn that failed before any answer is never sent: it alone is nothing to compact.
    expect(compactionEnd([turn('a'), turn('')], 1)).toBeNull();
  });
});

describe('a request built from a compacted conversation', () => {
  it('sends the summary after the system prompt and only the turns after it, on both interfaces', () => {
    const cid = saved(4);
    store.appendSummary(cid, { content: 'We spoke of kites.', turns: 3, through: store.load(cid).turns[2]!.id, model: 'echo', api: 'chat', usage: { input_tokens: null, output_tokens: null } });
    const request = resume(cid).request('prompt 5');
    expect(request.system).toBe(`Be brief.\n\n${SUMMARY_LEAD} We spoke of kites.`);
    expect(request.messages).toEqual([
      { role: 'user', content: 'prompt 4' },
      { role: 'assistant', content: 'answer 4' },
      { role: 'user', content: 'prompt 5' },
    ]);
    // Chat Completions: a system message first; Messages: the top-level system, user first.
    expect((buildChatRequest(request).messages as unknown[])[0]).toEqual({ role: 'system', content: request.system });
    const messages = buildMessagesRequest({ ...request, maxTokens: 100 });
    expect(messages.system).toBe(request.system);
    expect((messages.messages as Array<{ role: string }>)[0]!.role).toBe('user');
  });

  it('the latest summary is the one sent; a turn asked again (/retry) after it is not covered', async () => {
    const cid = saved(3);
    const ids = store.load(cid).turns.map((t) => t.id);
    const usage = { input_tokens: null, output_tokens: null };
    store.appendSummary(cid, { content: 'first', turns: 2, through: ids[1], model: 'echo', api: 'chat', usage });
    store.appendSummary(cid, { content: 'second', turns: 3, through: ids[2], model: 'echo', api: 'chat', usage });
    const conversation = resume(cid);
    expect(conversation.request('next').messages).toEqual([{ role: 'user', content: 'next' }]);
    expect(conversation.request('next').system).toMatch(/second$/);
    // /retry of the last (covered) turn: its new answer is after the summary, so it is sent.
    await drainTurn(conversation.retry(new AbortController().signal)!);
    expect(conversation.request('next').messages).toEqual([
      { role: 'user', content: 'prompt 3' },
      { role: 'assistant', content: 'prompt 3' },
      { role: 'user', content: 'next' },
    ]);
    const reloaded = resume(cid).request('next');
    expect(reloaded.messages).toEqual(conversation.request('next').messages);
    expect(store.load(cid).summaries.map((s) => [s.content, s.covered])).toEqual([
      ['first', 2],
      ['second', 2],
    ]);
  });

  it('the context fitting counts the summary, not the turns it covers', () => {
    const cid = store.create({ model: 'echo', api: 'chat', system: null });
    const long = 'tell me more about the history of kites '.repeat(20);
    for (let i = 0; i < 30; i++) store.appendAssistant(cid, { ...savedAnswer(long), turn: store.appendUser(cid, `${i}: ${long}`) });
    const warnings: string[] = [];
    const window = { contextWindow: () => 4000, warn: (line: string) => warnings.push(line) };
    // Before: about 12 000 tokens of turns; most are left out.
    const before = resume(cid, window).request('next');
    expect(before.messages.length).toBeLessThan(20);
    const through = store.load(cid).turns[29]!.id;
    store.appendSummary(cid, { content: 'short', turns: 30, through, model: 'echo', api: 'chat', usage: { input_tokens: 100, output_tokens: 5 } });
    const after = resume(cid, window).request('next');
    expect(after.messages).toEqual([{ role: 'user', content: 'next' }]);
  });
});

describe('compacting against the dev gateway', () => {
  it('asks with the turns and the instruction, stores a summary record, and later requests send it', async () => {
    const cid = saved(3);
    const conversation = resume(cid);
    const outcome = await drainTurn(conversation.compact!('keep the numbers', new AbortController().signal)!);
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(outcome.compaction).toMatchObject({ turns: 3 });
    const asked = gateway.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> };
    expect(asked.messages.map((m) => m.content)).toEqual(['Be brief.', 'prompt 1', 'answer 1', 'prompt 2', 'answer 2', 'prompt 3', 'answer 3', compactionPrompt('keep the numbers')]);
    // echo repeats the last user message: the summary is the instruction, as the gateway saw it.
    expect(outcome.result.text).toBe(compactionPrompt('keep the numbers'));
    const summary = records(cid).at(-1)!;
    expect(summary).toMatchObject({ type: 'summary', content: compactionPrompt('keep the numbers'), turns: 3, through: store.load(cid).turns[2]!.id, model: 'echo', instructions: 'keep the numbers' });
    // The turns stay on disk; the summary replaces them in the next request.
    expect(store.load(cid).turns).toHaveLength(3);
    expect(conversation.request('next').messages).toEqual([{ role: 'user', content: 'next' }]);
    expect(conversation.request('next').system).toBe(systemWithSummary('Be brief.', compactionPrompt('keep the numbers')));
    expect(conversation.compact!('', new AbortController().signal)).toBeNull();
  });

  it('a second compaction takes the first summary as input and covers everything up to it', async () => {
    const cid = saved(2);
    const conversation = resume(cid);
    await drainTurn(conversation.compact!('', new AbortController().signal)!);
    await drainTurn(conversation.send('prompt 3', new AbortController().signal));
    gateway.requests.length = 0;
    const outcome = await drainTurn(conversation.compact!('again', new AbortController().signal)!);
    expect(outcome.compaction).toMatchObject({ turns: 3 });
    const asked = gateway.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> };
    expect(asked.messages.map((m) => m.content)).toEqual([systemWithSummary('Be brief.', compactionPrompt('')), 'prompt 3', 'prompt 3', compactionPrompt('again')]);
    expect(records(cid).filter((r) => r.type === 'summary').map((r) => r.turns)).toEqual([2, 3]);
  });

  it('a gateway failure writes nothing and changes nothing', async () => {
    const cid = saved(2, null, 'fail-500');
    const conversation = resume(cid);
    const before = readFileSync(join(dir, 'conversations', `${cid}.jsonl`), 'utf8');
    const outcome = await drainTurn(conversation.compact!('', new AbortController().signal)!);
    expect(outcome.status).toBe('error');
    expect(outcome.error?.exitCode).toBe(6);
    expect(outcome.compaction).toBeUndefined();
    expect(readFileSync(join(dir, 'conversations', `${cid}.jsonl`), 'utf8')).toBe(before);
    expect(conversation.request('next').messages).toHaveLength(5);
  });
});
