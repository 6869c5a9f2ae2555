// The Conversation both renderers drive, over real loopback HTTP against the dev gateway, with a
// real store in a temp dir: what is sent back, what is recorded, how each ending is classified.
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/server.js';
import { openConversation, type ConversationDeps } from '../../src/session/conversation.js';
import { conversationDeps, useGatewayAndStore, drainTurn } from '../helpers/conversation.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import type { Conversation } from '../../src/session/types.js';

let gateway: RunningGateway;
let dir: string;
let store: ConversationStore;

useGatewayAndStore('gatechat-conv-', (made) => ({ gateway, dir, store } = made));

const open = (model: string, extra: Partial<ConversationDeps> = {}): Conversation => openConversation(conversationDeps(gateway.url, store, model, extra));


const sentMessages = () => (gateway.requests.at(-1)!.body as { messages: unknown[] }).messages;

describe('Conversation', () => {
  it('sends prior turns as context and records both sides', async () => {
    const conversation = open('echo');
    const first = await drainTurn(conversation.send('one', new AbortController().signal));
    expect(first.status).toBe('complete');
    expect(first.result.text).toBe('one');
    expect(first.timings.firstTokenMs).not.toBeNull();
    await drainTurn(conversation.send('two', new AbortController().signal));
    expect(sentMessages()).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'one' },
      { role: 'user', content: 'two' },
    ]);
    const { turns } = store.load(conversation.cid!);
    expect(turns.map((t) => [t.user, t.assistant?.content, t.assistant?.status])).toEqual([
      ['one', 'one', 'complete'],
      ['two', 'two', 'complete'],
    ]);
  });

  it('a cancelled answer is kept as exactly its partial text and sent back as such', async () => {
    const conversation = open('slow-30');
    const controller = new AbortController();
    let seen = '';
    const outcome = await drainTurn(conversation.send('go', controller.signal), (e) => {
      if (e.type === 'text') seen += e.delta;
      if (seen.split(' ').length >= 3) controller.abort();
    });
    expect(outcome.status).toBe('cancelled');
    expect(outcome.result.finish_reason).toBe('cancelled');
    expect(outcome.result.text).toBe(seen);
    expect(store.load(conversation.cid!).turns[0]!.assistant).toMatchObject({ status: 'cancelled', content: seen });

    conversation.update({ model: 'echo' });
    await drainTurn(conversation.send('next', new AbortController().signal));
    expect(sentMessages()).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: seen },
      { role: 'user', content: 'next' },
    ]);
  });

  it('an interrupted stream and an error are outcomes, never throws', async () => {
    const conversation = open('drop-after-4');
    const dropped = await drainTurn(conversation.send('x', new AbortController().signal));
    expect(dropped.status).toBe('interrupted');
    expect(dropped.error?.exitCode).toBe(8);
    expect(dropped.result.text.trim().split(/\s+/)).toHaveLength(4);

    conversation.update({ model: 'fail-404' });
    const rejected = await drainTurn(conversation.send('y', new AbortController().signal));
    expect(rejected.status).toBe('error');
    expect(rejected.error?.exitCode).toBe(4);
    expect(rejected.result.text).toBe('');
  });

  it('/retry replaces the last answer in the context, on disk too', async () => {
    const conversation = open('echo');
    await drainTurn(conversation.send('first', new AbortController().signal));
    await drainTurn(conversation.retry(new AbortController().signal)!);
    expect(sentMessages()).toEqual([{ role: 'user', content: 'first' }]);
    expect(conversation.turns).toHaveLength(1);
    // Both attempts stay on disk; only the newest is context when the conversation is continued.
    expect(store.records(conversation.cid!).filter((r) => r.type === 'user')).toHaveLength(2);
    expect(store.load(conversation.cid!).turns).toHaveLength(1);
  });

  it('/retry sends the prompt again with its attachments', async () => {
    const conversation = open('echo', { store: null, record: false });
    const files = [{ kind: 'text' as const, path: 'notes.txt', text: 'attached words' }];
    await drainTurn(conversation.send('read this', new AbortController().signal, files));
    const firstBody = JSON.stringify(gateway.requests.at(-1)!.body);
    expect(firstBody).toContain('attached words');
    await drainTurn(conversation.retry(new AbortController().signal)!);
    expect(gateway.requests).toHaveLength(2);
    expect(JSON.stringify(gateway.requests[1]!.body)).toBe(firstBody);
  });

  it('keeps a max_tokens the gateway demanded for the next turn of the same chat', async () => {
    const conversation = open('max-tokens-required', {
      settings: { model: 'max-tokens-required', api: 'chat', stream: true },
      store: null,
      record: false,
      warn: () => {},
    });
    expect((await drainTurn(conversation.send('a', new AbortController().signal))).status).toBe('complete');
    // Refused without one, then sent again with one.
    expect(gateway.requests).toHaveLength(2);
    const demanded = (gateway.requests[1]!.body as { max_tokens?: unknown }).max_tokens;
    expect(demanded).toEqual(expect.any(Number));
    expect((await drainTurn(conversation.send('b', new AbortController().signal))).status).toBe('complete');
    // The next turn sends it at once: no second refusal.
    expect(gateway.requests).toHaveLength(3);
    expect(gateway.requests[2]!.body).toHaveProperty('max_tokens', demanded);
  });

  it('an error inside the stream, or in a non-streamed answer, is an error outcome in the gateway\'s words', async () => {
    const streamed = await drainTurn(open('error-event', { store: null, record: false }).send('x', new AbortController().signal));
    expect(streamed.status).toBe('error');
    expect(streamed.error).toMatchObject({ exitCode: 6, name: 'ServerStreamError' });
    expect(streamed.error?.message).toMatch(/^the gateway reported an error inside the stream \(overloaded\): gatechat dev gateway: simulated mid-stream error/);
    const whole = await drainTurn(
      open('error-chunk', { store: null, record: false, settings: { model: 'error-chunk', api: 'chat', stream: false } }).send('x', new AbortController().signal),
    );
    expect(whole.status).toBe('error');
    expect(whole.error).toMatchObject({ exitCode: 6, status: 502 });
    expect(whole.error?.message).toMatch(/^the gateway reported an error in its answer \(502\): gatechat dev gateway: simulated provider error/);
  });

  it('continues a saved conversation: its turns (attachments read back) are the context, a /retry supersedes the saved turn', async () => {
    const first = open('echo');
    const files = [{ kind: 'text' as const, path: 'notes.txt', text: 'attached words' }];
    const answer = (await drainTurn(first.send('read this', new AbortController().signal, files))).result.text;
    expect(answer).toContain('attached words');
    const cid = first.cid!;
    store.appendUser(cid, 'never answered');
    const resumed = open('echo', { resume: store.load(cid) });
    expect(resumed.cid).toBe(cid);
    expect(resumed.turns.map((t) => [t.prompt, t.status, t.result.text])).toEqual([
      ['read this', 'complete', answer],
      ['never answered', 'interrupted', ''],
    ]);
    expect(resumed.turns[0]!.attachments).toEqual(files);
    await drainTurn(resumed.send('and now?', new AbortController().signal));
    const context = sentMessages() as { role: string; content: unknown }[];
    expect(context).toHaveLength(3);
    expect(JSON.stringify(context[0])).toContain('attached words');
    expect(context.slice(1)).toEqual([
      { role: 'assistant', content: answer },
      { role: 'user', content: 'and now?' },
    ]);
    await drainTurn(resumed.retry(new AbortController().signal)!);
    const turns = store.load(cid).turns;
    expect(turns.map((t) => t.user)).toEqual(['read this', 'never answered', 'and now?']);
    expect(store.records(cid).filter((r) => r.type === 'user')).toHaveLength(4);
  });

  it('keeps the max-tokens field the gateway asked for, for later turns', async () => {
    const warnings: string[] = [];
    const withWarn = open('max-completion-tokens', {
      settings: { model: 'max-completion-tokens', api: 'chat', stream: true, maxTokens: 20 },
      store: null,
      record: false,
      warn: (line) => warnings.push(line),
    });
    await drainTurn(withWarn.send('a', new AbortController().signal));
    expect(gateway.requests).toHaveLength(2);
    await drainTurn(withWarn.send('b', new AbortController().signal));
    expect(gateway.requests).toHaveLength(3);
    expect(gateway.requests[2]!.body).toHaveProperty('max_completion_tokens', 20);
    expect(warnings).toHaveLength(1);
    expect(withWarn.cid).toBeNull();
  });

  it('retainText false: a long answer goes to disk in parts, never whole in memory, and loads back whole', async () => {
    const conversation = open('big-1', { retainText: false });
    let streamed = '';
    const outcome = await drainTurn(conversation.send('long', new AbortController().signal), (e) => {
      if (e.type === 'text') streamed += e.delta;
    });
    expect(outcome.status).toBe('complete');
    expect(outcome.result.text).toBe('');
    expect(streamed.length).toBe(1024 * 1024);
    const parts = store.records(conversation.cid!).filter((r) => r.type === 'answer_part');
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(store.load(conversation.cid!).turns[0]!.assistant).toMatchObject({ status: 'complete', content: streamed });
  });

  it('parts on disk without their final record (a crash) load as an interrupted partial answer', async () => {
    const cid = store.create({ model: 'm', api: 'chat' });
    store.appendUser(cid, 'question');
    store.appendAnswerPart(cid, 'half an ');
    store.appendAnswerPart(cid, 'answer');
    store.appendUser(cid, 'next question');
    const { turns } = store.load(cid);
    expect(turns[0]!.assistant).toMatchObject({ status: 'interrupted', content: 'half an answer' });
    expect(turns[1]!.assistant).toBeNull();
  });
});

