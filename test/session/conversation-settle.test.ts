// How a Conversation settles an exchange, over real loopback HTTP against the dev gateway (and small
// loopback servers where the dev gateway cannot say it) with a real store: prices, the ledger and the
// budget, what the gateway taught, the model a fallback named, quiet turns, timings, the first-token
// time, what is saved with an answer and a summary, and saved turns read back
// (mutation: src/session/conversation.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/server.js';
import { openConversation, type ConversationDeps, type GatewayConversationApi } from '../../src/session/conversation.js';
import { conversationDeps, savedAnswer, useGatewayAndStore, drainTurn } from '../helpers/conversation.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { UsageLedger, ledgerPath } from '../../src/session/ledger.js';
import { Budget } from '../../src/session/budget.js';
import type { ChatEvent } from '../../src/protocol/events.js';
import { connection, json, useLoopbackServers } from '../transport/loopback.js';

let gateway: RunningGateway;
let dir: string;
let store: ConversationStore;

useGatewayAndStore('gatechat-convsettle-', (made) => ({ gateway, dir, store } = made));
const serve = useLoopbackServers();

const open = (model: string, extra: Partial<ConversationDeps> = {}): GatewayConversationApi => openConversation(conversationDeps(gateway.url, store, model, extra));
const signal = () => new AbortController().signal;


const records = (cid: string) => store.records(cid) as unknown as Array<Record<string, unknown>>;
const prices = { in: 3, out: 15 };

/** A loopback Chat Completions server (not streamed) answering each request with `answer(index, body)`. */
function chatServer(answer: (index: number, body: { model: string; messages: { role: string; content: unknown }[] }) => { status?: number; body: unknown }) {
  return serve((_req, res, recorded, index) => {
    const { status = 200, body } = answer(index, JSON.parse(recorded.body));
    json(res, status, body);
  });
}
const completion = (text: string, model: string | undefined) => ({
  id: 'c1',
  object: 'chat.completion',
  ...(model !== undefined ? { model } : {}),
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 2 },
});
const through = (url: string, model: string, extra: Partial<ConversationDeps> = {}) =>
  openConversation({ ...conversationDeps(gateway.url, store, model, extra), conn: connection(url, { retries: 0 }), settings: { model, api: 'chat', stream: false } });

describe('prices, the ledger and the budget (SPEC §16)', () => {
  it('prices are asked only when the gateway put no cost on the answer, and then make its cost', async () => {
    const asked: string[] = [];
    const pricesFor = (model: string) => {
      asked.push(model);
      return prices;
    };
    const unpriced = await drainTurn(open('echo', { pricesFor }).send('one two', signal()));
    expect(asked).toEqual(['echo']);
    expect(unpriced.result.cost).toMatchObject({ source: expect.any(String) });
    expect((unpriced.result.cost as { usd: number }).usd).toBeGreaterThan(0);
    asked.length = 0;
    const priced = await drainTurn(open('echo+cost', { pricesFor }).send('one two', signal()));
    expect(asked).toEqual([]);
    expect(priced.result.cost).not.toBeNull();
  });

  it('the gateway\'s cost is saved with the answer and charged to the budget', async () => {
    const budget = new Budget({ maxCost: 100 });
    const conversation = open('echo+cost', { budget });
    const outcome = await drainTurn(conversation.send('one two', signal()));
    expect(outcome.result.cost).not.toBeNull();
    expect(store.load(conversation.cid!).turns[0]!.assistant!.cost).toEqual(outcome.result.cost);
    expect(budget.spent).toBeGreaterThan(0);
    expect(budget.spent).toBe((outcome.result.cost as { usd: number }).usd);
  });

  it('a request that failed is in the ledger under the model asked for', async () => {
    const ledger = new UsageLedger({ profile: undefined }, () => {}, dir);
    await drainTurn(open('fail-500', { ledger, store: null, record: false }).send('x', signal()));
    const lines = readFileSync(ledgerPath(dir), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ model: 'fail-500', status: 'error' });
  });
});

describe('what the gateway taught', () => {
  it('a max-tokens field learned is handed on with the model that taught it', async () => {
    const learned: [string, unknown][] = [];
    const conversation = open('max-completion-tokens', {
      settings: { model: 'max-completion-tokens', api: 'chat', stream: true, maxTokens: 20 },
      warn: () => {},
      onLearned: async (model, facts) => void learned.push([model, facts]),
    });
    await drainTurn(conversation.send('a', signal()));
    expect(learned).toEqual([['max-completion-tokens', expect.objectContaining({})]]);
    expect(Object.keys(learned[0]![1] as object).length).toBeGreaterThan(0);
  });

  it('a limit the user set stays when the gateway demanded none', async () => {
    const conversation = open('echo', { settings: { model: 'echo', api: 'chat', stream: true, maxTokens: 50 } });
    await drainTurn(conversation.send('a', signal()));
    await drainTurn(conversation.send('b', signal()));
    expect(gateway.requests.at(-1)!.body).toHaveProperty('max_tokens', 50);
    expect(conversation.settings.maxTokens).toBe(50);
  });
});

describe('fallbacks (SPEC §17)', () => {
  it('the answering model keeps the name its gateway gave it; a fallback without a warn hook still answers', async () => {
    const server = await chatServer((_i, body) => (body.model === 'primary' ? { status: 500, body: { error: { message: 'down' } } } : { body: completion('hello', 'backup-2025-01') }));
    const outcome = await drainTurn(through(server.url, 'primary', { fallbacks: ['backup'], store: null, record: false }).send('hi', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(outcome.result.model).toBe('backup-2025-01');
    expect(outcome.result.fallback_from).toBe('primary');
  });

  it('an answer that names no model is the fallback\'s', async () => {
    const server = await chatServer((_i, body) => (body.model === 'primary' ? { status: 500, body: { error: { message: 'down' } } } : { body: completion('hello', undefined) }));
    const outcome = await drainTurn(through(server.url, 'primary', { fallbacks: ['backup'], store: null, record: false, warn: () => {} }).send('hi', signal()));
    expect(outcome.result.model).toBe('backup');
  });
});

describe('a quiet turn (a batch line)', () => {
  it('yields nothing and returns the whole outcome; not quiet, the events come through', async () => {
    const events: ChatEvent[] = [];
    const outcome = await drainTurn(open('echo', { quiet: true, store: null, record: false }).send('one two three', signal()), (e) => events.push(e));
    expect(events).toEqual([]);
    expect(outcome.result.text).toBe('one two three');
    await drainTurn(open('echo', { quiet: false, store: null, record: false }).send('one two three', signal()), (e) => events.push(e));
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(0);
  });
});

describe('timings and the first-token time', () => {
  const timed = async (model: string, prompt: string, extra: Partial<ConversationDeps> = {}) => {
    const before = Date.now();
    const outcome = await drainTurn(open(model, { store: null, record: false, ...extra }).send(prompt, signal()));
    return { outcome, elapsed: Date.now() - before };
  };

  it('a turn\'s first token is within its total, which is within the time the test waited', async () => {
    const { outcome, elapsed } = await timed('echo', 'one two three');
    expect(outcome.timings.firstTokenMs).not.toBeNull();
    expect(outcome.timings.firstTokenMs!).toBeGreaterThanOrEqual(0);
    expect(outcome.timings.firstTokenMs!).toBeLessThanOrEqual(outcome.timings.totalMs);
    expect(outcome.timings.totalMs).toBeLessThanOrEqual(elapsed);
  });

  it('reasoning alone, or a tool call alone, is a first token; an answer with nothing in it has none', async () => {
    const thinking = await timed('think', '');
    expect(thinking.outcome.result.text).toBe('');
    expect(thinking.outcome.result.reasoning).not.toBeNull();
    expect(thinking.outcome.timings.firstTokenMs).not.toBeNull();
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
    const calling = await timed('tool', 'x', { tools });
    expect(calling.outcome.result.tool_calls).toHaveLength(1);
    expect(calling.outcome.result.text).toBe('');
    expect(calling.outcome.timings.firstTokenMs).not.toBeNull();
    const empty = await timed('echo', '');
    expect(empty.outcome.status).toBe('complete');
    expect(empty.outcome.result.text).toBe('');
    expect(empty.outcome.timings.firstTokenMs).toBeNull();
  });

  it('a compaction\'s timings too', async () => {
    const conversation = open('echo', { store: null, record: false });
    await drainTurn(conversation.send('one', signal()));
    const before = Date.now();
    const outcome = await drainTurn(conversation.compact!('', signal()));
    const elapsed = Date.now() - before;
    expect(outcome.timings.firstTokenMs).not.toBeNull();
    expect(outcome.timings.firstTokenMs!).toBeLessThanOrEqual(outcome.timings.totalMs);
    expect(outcome.timings.totalMs).toBeLessThanOrEqual(elapsed);
  });
});

describe('what is saved with an answer', () => {
  it('the request\'s parameters and the timings', async () => {
    const conversation = open('echo', { settings: { model: 'echo', api: 'chat', stream: true, temperature: 0.5, maxTokens: 50, extraBody: { seed: 1 } } });
    const outcome = await drainTurn(conversation.send('one two', signal()));
    const answer = records(conversation.cid!).find((r) => r.type === 'assistant')!;
    expect(answer.params).toEqual({ temperature: 0.5, max_tokens: 50, stream: true, options: { seed: 1 } });
    expect(answer.timings).toEqual({ first_token_ms: outcome.timings.firstTokenMs, total_ms: outcome.timings.totalMs });
  });
});

describe('a budget already reached', () => {
  it('the refused turn\'s result names its interface and conversation, finished by an error', async () => {
    const cid = store.create({ model: 'echo', api: 'chat', system: null });
    store.appendAssistant(cid, { ...savedAnswer('a'), turn: store.appendUser(cid, 'q') });
    const conversation = open('echo', { resume: store.load(cid), budget: new Budget({ maxCost: 0 }) });
    const outcome = await drainTurn(conversation.send('hello', signal()));
    expect(outcome.result).toMatchObject({ api: 'chat', cid, finish_reason: 'error', text: '' });
    const compacted = await drainTurn(conversation.compact!('', signal()));
    expect(compacted.result).toMatchObject({ api: 'chat', cid, finish_reason: 'error', text: '' });
  });
});

describe('a compaction answered with blank text (SPEC §17)', () => {
  it('is no summary: an error naming the model that answered, nothing compacted', async () => {
    const server = await chatServer(() => ({ body: completion('  \n ', 'summariser-2025') }));
    const cid = store.create({ model: 'summariser', api: 'chat', system: null });
    store.appendAssistant(cid, { ...savedAnswer('a'), turn: store.appendUser(cid, 'q') });
    const conversation = through(server.url, 'summariser', { resume: store.load(cid) });
    const before = records(cid).length;
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toBe('summariser-2025 answered without a summary; nothing was compacted');
    expect(outcome.compaction).toBeUndefined();
    expect(conversation.currentSummary!()).toBeNull();
    expect(records(cid)).toHaveLength(before);
  });

  it('a summary is saved under the model that answered, with its cost', async () => {
    const server = await chatServer(() => ({ body: { ...completion('We spoke of kites.', 'summariser-2025'), usage: { prompt_tokens: 3, completion_tokens: 2, cost: 0.5 } } }));
    const cid = store.create({ model: 'summariser', api: 'chat', system: null });
    store.appendAssistant(cid, { ...savedAnswer('a'), turn: store.appendUser(cid, 'q') });
    const outcome = await drainTurn(through(server.url, 'summariser', { resume: store.load(cid) }).compact!('', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(outcome.result.cost).not.toBeNull();
    const summary = records(cid).find((r) => r.type === 'summary')!;
    expect(summary.model).toBe('summariser-2025');
    expect(summary.cost).toEqual(outcome.result.cost);
  });
});

describe('saved turns read back (-c / --cid)', () => {
  it('carry what was saved: reasoning, finish, usage, cost, model, interface, what was left out, tool results', () => {
    const cid = store.create({ model: 'echo', api: 'chat', system: null });
    const cost = { usd: 0.25, source: 'gateway' as const };
    const call = { id: 'call_1', name: 'lookup', arguments: { q: 1 } };
    store.appendAssistant(cid, {
      ...savedAnswer('', { reasoning: 'thought', tool_calls: [call], finish_reason: 'tool_calls', raw_finish_reason: 'tool_use', usage: { input_tokens: 5, output_tokens: 6 }, cost, model: 'other-model', api: 'messages', omitted_turns: 2 }),
      turn: store.appendUser(cid, 'look it up'),
    } as never);
    const results = [{ id: 'call_1', name: 'lookup', ok: true, text: 'found' }];
    store.appendAssistant(cid, { ...savedAnswer('done', { omitted_turns: 0 } as never), turn: store.appendUser(cid, '', { toolResults: results }) });
    store.appendUser(cid, 'never answered');
    const [first, second, lost] = open('echo', { resume: store.load(cid) }).turns;
    expect(first).toStrictEqual({
      prompt: 'look it up',
      omittedTurns: 2,
      status: 'complete',
      result: { text: '', reasoning: 'thought', tool_calls: [call], finish_reason: 'tool_calls', raw_finish_reason: 'tool_use', usage: { input_tokens: 5, output_tokens: 6 }, cost, model: 'other-model', api: 'messages', cid },
    });
    expect(second!.toolResults).toEqual(results);
    expect('omittedTurns' in second!).toBe(false);
    expect(second!.result.cost).toBeNull();
    expect(second!.result.api).toBe('chat');
    expect('toolResults' in first!).toBe(false);
    expect(lost!.status).toBe('interrupted');
    expect(lost!.result).toMatchObject({ text: '', finish_reason: 'error', api: 'chat', cid });
  });
});

describe('how a stream ends', () => {
  it('a finish without the end marker is a complete answer', async () => {
    const outcome = await drainTurn(open('no-done', { store: null, record: false }).send('one two', signal()));
    expect(outcome.status).toBe('complete');
    expect(outcome.error).toBeUndefined();
    expect(outcome.termination).toBe('finish_then_eof');
  });

  it('a cancelled turn\'s error says so', async () => {
    const controller = new AbortController();
    const outcome = await drainTurn(open('slow-30', { store: null, record: false }).send('go', controller.signal), () => controller.abort());
    expect(outcome.status).toBe('cancelled');
    expect(outcome.error?.message).toBe('cancelled');
  });
});

describe('a streamed answer from a loopback server', () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 's1', object: 'chat.completion.chunk', model: 'streamer', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const streaming = (model = 'streamer') => ({ store: null, record: false, settings: { model, api: 'chat' as const, stream: true } });

  it('the first token is the first reasoning or text to arrive, not a later one', async () => {
    for (const first of [{ reasoning_content: 'let me think' }, { content: 'early' }]) {
      let release!: () => void;
      const go = new Promise<void>((resolve) => (release = resolve));
      const server = await serve(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk(first));
        await go;
        res.write(chunk({ content: ' late' }));
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
      });
      let seen = false;
      const conversation = openConversation({ ...conversationDeps(gateway.url, store, 'streamer', streaming()), conn: connection(server.url, { retries: 0 }) });
      const outcome = await drainTurn(conversation.send('hi', signal()), () => {
        if (seen) return;
        seen = true;
        // The rest is sent only after this wait: a first-token time taken from it would be within the wait's end.
        setTimeout(release, 150);
      });
      expect(outcome.status).toBe('complete');
      expect(outcome.timings.totalMs - outcome.timings.firstTokenMs!).toBeGreaterThanOrEqual(100);
    }
  });

  it('of two errors inside the stream, the first is the one reported', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'partial' }));
      res.write(`event: error\ndata: ${JSON.stringify({ error: { message: 'first trouble', code: 'one' } })}\n\n`);
      res.write(`event: error\ndata: ${JSON.stringify({ error: { message: 'second trouble', code: 'two' } })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
    const conversation = openConversation({ ...conversationDeps(gateway.url, store, 'streamer', streaming()), conn: connection(server.url, { retries: 0 }) });
    const outcome = await drainTurn(conversation.send('hi', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toBe('the gateway reported an error inside the stream (one): first trouble');
  });
});
