// Conversation paths the basic tests do not take, over real loopback HTTP against the dev gateway with a
// real store: a context overflow learned and refitted (SPEC §17), --context last, a budget already spent,
// fallbacks, and the --schema and error helpers (mutation: src/session/conversation.ts).
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/server.js';
import { answerToolAsText, openConversation, reportedError, type ConversationDeps, type GatewayConversationApi } from '../../src/session/conversation.js';
import { conversationDeps, savedAnswer, useGatewayAndStore, drainTurn } from '../helpers/conversation.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { ExitCode } from '../../src/exit-codes.js';
import { compileAnswerSchema } from '../../src/session/answer-schema.js';
import { Budget } from '../../src/session/budget.js';
import type { ServerStreamError } from '../../src/transport/errors.js';
import type { ChatEvent } from '../../src/protocol/events.js';

let gateway: RunningGateway;
let store: ConversationStore;

useGatewayAndStore('gatechat-convpaths-', (made) => ({ gateway, store } = made));

const open = (model: string, extra: Partial<ConversationDeps> = {}): GatewayConversationApi => openConversation(conversationDeps(gateway.url, store, model, extra));
const signal = () => new AbortController().signal;


const bodies = () => gateway.requests.map((r) => r.body as { messages: { role: string; content: unknown }[]; model: string });
const longPrompt = (i: number) => `turn ${String(i).padStart(2, '0')}: ${'tell me more about the history of kites '.repeat(5)}`;

/** A saved conversation of `turns` echoed turns (about 110 tokens each), loaded back for `model`. */
function resumed(model: string, turns: number, extra: Partial<ConversationDeps> = {}): GatewayConversationApi {
  const cid = store.create({ model, api: 'chat', system: null });
  for (let i = 0; i < turns; i++) {
    const prompt = longPrompt(i);
    store.appendAssistant(cid, { ...savedAnswer(prompt, { model }), turn: store.appendUser(cid, prompt) });
  }
  return open(model, { resume: store.load(cid), ...extra });
}

describe('a context overflow (SPEC §17)', () => {
  it('a 400 naming the window is learned: the request is fitted again, said once, recorded, and the next prompt fits at once', async () => {
    const warnings: string[] = [];
    const learned: [string, unknown][] = [];
    const conversation = resumed('context-2000', 30, { warn: (line) => warnings.push(line), onLearned: async (model, facts) => void learned.push([model, facts]) });
    const outcome = await drainTurn(conversation.send('and what came next?', signal()));
    expect(outcome.status).toBe('complete');
    expect(outcome.result.text).toBe('and what came next?');
    expect(warnings).toHaveLength(1);
    const match = /^left out the (\d+) oldest turns \(about (\d+) tokens\) to fit context-2000's context window of 2000 tokens \(learned from the gateway's refusal; remembered\) \(--context full sends them all\)$/.exec(warnings[0]!);
    expect(match, warnings[0]).not.toBeNull();
    const omitted = Number(match![1]);
    expect(omitted).toBeGreaterThan(1);
    expect(Number(match![2])).toBeGreaterThan(0);
    expect(learned).toEqual([['context-2000', { context: 2000 }]]);
    const [refused, fitted] = bodies();
    expect(bodies()).toHaveLength(2);
    expect(refused!.messages).toHaveLength(61);
    expect(fitted!.messages).toHaveLength(2 * (30 - omitted) + 1);
    expect(fitted!.messages[0]!.content).toBe(longPrompt(omitted));
    expect(conversation.turns.at(-1)!.omittedTurns).toBe(omitted);
    const saved = store.load(conversation.cid!).turns.at(-1)!;
    expect(saved.assistant?.omitted_turns).toBe(omitted);

    // Learned for the session: the next prompt is fitted before it is sent, one request, no "learned".
    gateway.requests.length = 0;
    warnings.length = 0;
    const next = await drainTurn(conversation.send('and after that?', signal()));
    expect(next.status).toBe('complete');
    expect(bodies()).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^left out the \d+ oldest turns \(about \d+ tokens\) to fit context-2000's context window of 2000 tokens \(--context full sends them all\)$/);
    expect(learned).toHaveLength(1);
  });

  it('--context full: the refusal stands, nothing is left out or learned', async () => {
    const warnings: string[] = [];
    const learned: unknown[] = [];
    const conversation = resumed('context-2000', 30, { contextMode: { kind: 'full' }, warn: (line) => warnings.push(line), onLearned: async (_m, facts) => void learned.push(facts) });
    const outcome = await drainTurn(conversation.send('again?', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toMatch(/maximum context length is 2000 tokens/);
    expect(bodies()).toHaveLength(1);
    expect(warnings).toEqual([]);
    expect(learned).toEqual([]);
  });

  it('a window known beforehand is fitted to at once (one request, nothing learned); a new conversation refused has nothing to leave out', async () => {
    const warnings: string[] = [];
    const learned: unknown[] = [];
    const conversation = resumed('context-2000', 30, { contextWindow: () => 2000, warn: (line) => warnings.push(line), onLearned: async (_m, facts) => void learned.push(facts) });
    const fresh = open('context-10', { warn: (line) => warnings.push(line) });
    const refused = await drainTurn(fresh.send('a prompt longer than ten tokens surely, by quite a few words', signal()));
    expect(refused.status).toBe('error');
    expect(refused.error?.message).toMatch(/maximum context length is 10 tokens/);
    expect(warnings).toEqual([]);
    const outcome = await drainTurn(conversation.send('and then?', signal()));
    expect(outcome.status).toBe('complete');
    expect(bodies()).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^left out the \d+ oldest turns \(about \d+ tokens\) to fit context-2000's context window of 2000 tokens \(--context full sends them all\)$/);
    expect(learned).toEqual([]);
  });
});

describe('--context last', () => {
  it('sends the last n turns and says how many were left out, naming --context', async () => {
    const warnings: string[] = [];
    const conversation = resumed('echo', 3, { contextMode: { kind: 'last', turns: 1 }, warn: (line) => warnings.push(line) });
    await drainTurn(conversation.send('now', signal()));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^left out the 2 oldest turns \(about \d+ tokens\) \(--context 1\)$/);
    expect(bodies()[0]!.messages).toHaveLength(3);
    warnings.length = 0;
    const two = resumed('echo', 2, { contextMode: { kind: 'last', turns: 1 }, warn: (line) => warnings.push(line) });
    await drainTurn(two.send('now', signal()));
    expect(warnings).toEqual([expect.stringMatching(/^left out the oldest turn \(about \d+ tokens\) \(--context 1\)$/)]);
  });

  it('nothing left out: nothing said', async () => {
    const warnings: string[] = [];
    const conversation = resumed('echo', 2, { contextMode: { kind: 'last', turns: 5 }, warn: (line) => warnings.push(line) });
    await drainTurn(conversation.send('now', signal()));
    expect(warnings).toEqual([]);
    expect(bodies()[0]!.messages).toHaveLength(5);
  });
});

describe('a budget already reached (SPEC §16)', () => {
  it('a prompt sends nothing and records nothing: an error outcome with the budget\'s error', async () => {
    const budget = new Budget({ maxCost: 0 });
    const conversation = open('echo', { budget });
    const outcome = await drainTurn(conversation.send('hello', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toMatch(/^budget reached: --max-cost/);
    expect(outcome.timings).toEqual({ firstTokenMs: null, totalMs: 0 });
    expect(outcome.result.text).toBe('');
    expect(bodies()).toHaveLength(0);
    expect(conversation.cid).toBeNull();
    expect(store.list()).toHaveLength(0);
  });

  it('a compaction sends nothing and changes nothing', async () => {
    const budget = new Budget({ maxCost: 0 });
    const conversation = resumed('echo', 3, { budget });
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toMatch(/^budget reached/);
    expect(outcome.timings).toEqual({ firstTokenMs: null, totalMs: 0 });
    expect(bodies()).toHaveLength(0);
    expect(conversation.currentSummary!()).toBeNull();
  });
});

describe('fallbacks (SPEC §17)', () => {
  it('a model failing before its first byte: the fallback answers, named in the result and the saved answer, with a warning', async () => {
    const warnings: string[] = [];
    const conversation = open('fail-500', { fallbacks: ['echo'], warn: (line) => warnings.push(line) });
    const outcome = await drainTurn(conversation.send('hello', signal()));
    expect(outcome.status).toBe('complete');
    expect(outcome.result.text).toBe('hello');
    expect(outcome.result.model).toBe('echo');
    expect(outcome.result.fallback_from).toBe('fail-500');
    expect(warnings).toEqual([expect.stringMatching(/^fail-500: .*simulated 500.*; trying the fallback echo$/)]);
    const saved = store.load(conversation.cid!).turns[0]!.assistant!;
    expect(saved.model).toBe('echo');
    expect(saved.fallback_from).toBe('fail-500');
  });

  it('no fallback needed: the result names none', async () => {
    const conversation = open('echo', { fallbacks: ['echo'] });
    const outcome = await drainTurn(conversation.send('hello', signal()));
    expect(outcome.result.fallback_from).toBeUndefined();
    expect(store.load(conversation.cid!).turns[0]!.assistant!.fallback_from).toBeUndefined();
  });
});

describe('answerToolAsText (--schema on Messages)', () => {
  it('the answer tool\'s input becomes text, as given or as JSON; its tool_calls stop is an ordinary stop', () => {
    expect(answerToolAsText({ type: 'tool_call', id: 'a', name: 'answer', arguments: '{"x":1}' } as ChatEvent)).toEqual({ type: 'text', delta: '{"x":1}' });
    expect(answerToolAsText({ type: 'tool_call', id: 'a', name: 'answer', arguments: { x: 1 } } as unknown as ChatEvent)).toEqual({ type: 'text', delta: '{"x":1}' });
    expect(answerToolAsText({ type: 'finish', reason: 'tool_calls', raw: 'tool_use' } as unknown as ChatEvent)).toEqual({ type: 'finish', reason: 'stop', raw: 'tool_use' });
  });

  it('any other event passes unchanged', () => {
    const other = { type: 'tool_call', id: 'b', name: 'lookup', arguments: '{}' } as ChatEvent;
    expect(answerToolAsText(other)).toBe(other);
    const stop = { type: 'finish', reason: 'length', raw: 'max_tokens' } as unknown as ChatEvent;
    expect(answerToolAsText(stop)).toBe(stop);
    const text = { type: 'text', delta: 'x' } as ChatEvent;
    expect(answerToolAsText(text)).toBe(text);
  });
});

describe('reportedError', () => {
  it('says where, the code when there is one, the message and the status', () => {
    const e = <ServerStreamError>reportedError({ type: 'error', message: 'overloaded', code: 'busy', status: 529 } as ChatEvent, true);
    expect(e.message).toBe('the gateway reported an error inside the stream (busy): overloaded');
    expect(e.status).toBe(529);
    const plain = <ServerStreamError>reportedError({ type: 'error', message: 'bad', code: null, status: null } as unknown as ChatEvent, false);
    expect(plain.message).toBe('the gateway reported an error in its answer: bad');
    expect(plain.status).toBeNull();
    const none = <ServerStreamError>reportedError(undefined, true);
    expect(none.message).toBe('the gateway reported an error inside the stream: no message');
    expect(none.status).toBeNull();
    expect(reportedError({ type: 'text', delta: 'x' } as ChatEvent, false).message).toBe('the gateway reported an error in its answer: no message');
    expect(reportedError({ type: 'error', message: 'm' } as unknown as ChatEvent, false).message).toBe('the gateway reported an error in its answer: m');
  });
});

describe('compaction edges', () => {
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];

  it('an answer that asks for a tool instead of summarising compacts nothing: an error naming the model, nothing written', async () => {
    const conversation = resumed('tool', 2, { tools });
    const before = store.records(conversation.cid!).length;
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toBe('tool answered without a summary (it asked for a tool instead); nothing was compacted');
    expect(outcome.error?.hint).toBe('try again, or with another model: /model, or -m');
    expect(outcome.error?.exitCode).toBe(ExitCode.server);
    expect(outcome.compaction).toBeUndefined();
    expect(conversation.currentSummary!()).toBeNull();
    expect(store.records(conversation.cid!)).toHaveLength(before);
  });

  it('the user\'s instructions are saved trimmed; a conversation not recorded takes the summary without writing it', async () => {
    const conversation = resumed('echo', 2);
    const outcome = await drainTurn(conversation.compact!('  keep the numbers  ', signal()));
    expect(outcome.status).toBe('complete');
    const summary = store.records(conversation.cid!).find((r) => r.type === 'summary') as { instructions?: string } | undefined;
    expect(summary?.instructions).toBe('keep the numbers');

    const unrecorded = resumed('echo', 2, { record: false });
    const before = store.records(unrecorded.cid!).length;
    const done = await drainTurn(unrecorded.compact!('', signal()));
    expect(done.status).toBe('complete');
    expect(done.compaction?.turns).toBe(2);
    expect(unrecorded.currentSummary!()).toEqual({ text: done.result.text, covered: 2 });
    expect(store.records(unrecorded.cid!)).toHaveLength(before);
  });
});

describe('settings, clear, tools, retry', () => {
  it('a new conversation records its settings, nulls for what is unset; a changed setting is recorded with the next prompt only', async () => {
    const conversation = open('echo');
    await drainTurn(conversation.send('one', signal()));
    expect(store.load(conversation.cid!).settings).toEqual({ model: 'echo', api: 'chat', system: null, temperature: null, max_tokens: null, options: null, tools: null });
    conversation.update({ temperature: 0.5, system: 'Be terse.' });
    await drainTurn(conversation.send('two', signal()));
    await drainTurn(conversation.send('three', signal()));
    const withSettings = store.records(conversation.cid!).filter((r) => (r as { settings?: unknown }).settings !== undefined);
    expect(withSettings).toHaveLength(1);
    expect(store.load(conversation.cid!).settings).toEqual({ model: 'echo', api: 'chat', system: 'Be terse.', temperature: 0.5, max_tokens: null, options: null, tools: null });
  });

  it('clear starts a new conversation: no turns, no id, the next prompt alone in a new file', async () => {
    const conversation = open('echo', { title: 'first' });
    await drainTurn(conversation.send('one', signal()));
    const first = conversation.cid;
    conversation.clear();
    expect(conversation.turns).toEqual([]);
    expect(conversation.cid).toBeNull();
    await drainTurn(conversation.send('two', signal()));
    expect(conversation.cid).not.toBe(first);
    expect(bodies().at(-1)!.messages).toEqual([{ role: 'user', content: 'two' }]);
    expect(store.list().find((c) => c.cid === conversation.cid)?.title ?? null).not.toBe('first');
  });

  it('the run\'s tools are offered after the configured ones', () => {
    const own = { type: 'function' as const, function: { name: 'own' } };
    const run = { type: 'function' as const, function: { name: 'run' } };
    const conversation = open('echo', { tools: [own] });
    expect(conversation.request('x').tools).toEqual([own]);
    conversation.offerRunTools([run]);
    expect(conversation.request('x').tools).toEqual([own, run]);
    expect(open('echo').request('x').tools).toBeUndefined();
    const bare = open('echo');
    bare.offerRunTools([run]);
    expect(bare.request('x').tools).toEqual([run]);
  });

  it('nothing to retry: null; /retry keep records the new ask beside the old one', async () => {
    const conversation = open('echo');
    expect(conversation.retry(signal())).toBeNull();
    await drainTurn(conversation.send('one', signal()));
    await drainTurn(conversation.retry(signal(), { keep: true })!);
    const [turn] = store.load(conversation.cid!).turns;
    expect(store.load(conversation.cid!).turns).toHaveLength(1);
    expect(turn!.alternatives).toHaveLength(1);
    await drainTurn(conversation.retry(signal())!);
    expect(store.load(conversation.cid!).turns[0]!.alternatives).toHaveLength(1);
  });

  it('a saved prompt whose answer never got written comes back as an interrupted turn with no text', async () => {
    const cid = store.create({ model: 'echo', api: 'chat', system: null });
    store.appendUser(cid, 'lost');
    const conversation = open('echo', { resume: store.load(cid) });
    expect(conversation.turns).toHaveLength(1);
    expect(conversation.turns[0]!.status).toBe('interrupted');
    expect(conversation.turns[0]!.result.text).toBe('');
    expect(conversation.turns[0]!.result.cid).toBe(cid);
  });
});

describe('--schema answers', () => {
  const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

  it('a matching answer carries its data; a mismatch is an error with the data still given; no schema: no data field', async () => {
    const check = await compileAnswerSchema(schema);
    const conversation = open('echo', { answerSchema: { schema, check } });
    const good = await drainTurn(conversation.send('{"n":1}', signal()));
    expect(good.status).toBe('complete');
    expect(good.error).toBeUndefined();
    expect(good.data).toEqual({ n: 1 });
    const bad = await drainTurn(conversation.send('{"m":1}', signal()));
    expect(bad.status).toBe('complete');
    expect(bad.error?.message).toMatch(/does not match the schema/);
    expect(bad.data).toEqual({ m: 1 });
    expect(store.load(conversation.cid!).turns[1]!.assistant!.error?.message).toMatch(/does not match the schema/);
    const notJson = await drainTurn(conversation.send('plain words', signal()));
    expect(notJson.error?.message).toMatch(/not JSON/);
    expect(notJson.data).toBeNull();
    const plain = await drainTurn(open('echo').send('{"n":1}', signal()));
    expect('data' in plain).toBe(false);
  });

  it('a failed answer is not checked: its error is the gateway\'s, data null', async () => {
    const check = await compileAnswerSchema(schema);
    const outcome = await drainTurn(open('fail-500', { answerSchema: { schema, check } }).send('{"n":1}', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toMatch(/simulated 500/);
    expect(outcome.data).toBeNull();
  });
});

describe('a stream that ends cleanly mid-answer', () => {
  it('is an interrupted turn with the interrupted-stream error, its partial text kept and saved', async () => {
    const conversation = open('eof-after-3');
    const outcome = await drainTurn(conversation.send('one two three four five six', signal()));
    expect(outcome.status).toBe('interrupted');
    expect(outcome.error?.name).toBe('StreamInterruptedError');
    expect(outcome.termination).toBe('truncated');
    expect(outcome.result.text.length).toBeGreaterThan(0);
    expect(store.load(conversation.cid!).turns[0]!.assistant!.status).toBe('interrupted');
  });
});
