// Conversation behaviours around its turns and its record, over real loopback HTTP against the dev
// gateway with a real store: --title, --no-save with a store, a /retry's link to the turn it replaces,
// /retry with a summary in effect, when the context window is asked, Messages' answer reserve, a tool
// loop's follow-up (sendToolResults), and a store that stops taking writes mid-turn
// (mutation: src/session/conversation.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/server.js';
import { openConversation, type ConversationDeps, type GatewayConversationApi } from '../../src/session/conversation.js';
import { conversationDeps, savedAnswer, useGatewayAndStore, drainTurn } from '../helpers/conversation.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { compactionPrompt } from '../../src/session/compaction.js';
import { textTokens } from '../../src/session/context-fit.js';
import { compileAnswerSchema } from '../../src/session/answer-schema.js';
import { connection, json, useLoopbackServers } from '../transport/loopback.js';

let gateway: RunningGateway;
let dir: string;
let store: ConversationStore;

useGatewayAndStore('gatechat-convturns-', (made) => ({ gateway, dir, store } = made));
const serve = useLoopbackServers();

const open = (model: string, extra: Partial<ConversationDeps> = {}): GatewayConversationApi => openConversation(conversationDeps(gateway.url, store, model, extra));
const signal = () => new AbortController().signal;


type Body = { messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[]; model: string };
const bodies = () => gateway.requests.map((r) => r.body as Body);
const records = (cid: string) => store.records(cid) as unknown as Array<Record<string, unknown>>;
const longPrompt = (i: number) => `turn ${String(i).padStart(2, '0')}: ${'tell me more about the history of kites '.repeat(5)}`;

/** A saved conversation of `turns` echoed turns (about 110 tokens each), its id. */
function savedTurns(model: string, turns: number): string {
  const cid = store.create({ model, api: 'chat', system: null });
  for (let i = 0; i < turns; i++) {
    const prompt = longPrompt(i);
    store.appendAssistant(cid, { ...savedAnswer(prompt, { model }), turn: store.appendUser(cid, prompt) });
  }
  return cid;
}

const resumed = (model: string, turns: number, extra: Partial<ConversationDeps> = {}) => open(model, { resume: store.load(savedTurns(model, turns)), ...extra });

/** Puts a directory where the conversation's file is: every later write to it fails (EISDIR), as on a full disk. */
function breakFile(cid: string): () => void {
  const path = join(dir, 'conversations', `${cid}.jsonl`);
  const content = readFileSync(path);
  rmSync(path);
  mkdirSync(path);
  return () => {
    rmSync(path, { recursive: true });
    writeFileSync(path, content);
  };
}

describe('--title', () => {
  it('is written once, with the first prompt; later prompts write no title', async () => {
    const conversation = open('echo', { title: 'kites' });
    await drainTurn(conversation.send('one', signal()));
    await drainTurn(conversation.send('two', signal()));
    expect(store.list().find((c) => c.cid === conversation.cid)?.title).toBe('kites');
    expect(records(conversation.cid!).filter((r) => r.type === 'title')).toHaveLength(1);
  });

  it('without one, no title record; not recorded, a title is not written anywhere and the turn still runs', async () => {
    const plain = open('echo');
    await drainTurn(plain.send('one', signal()));
    expect(records(plain.cid!).filter((r) => r.type === 'title')).toEqual([]);
    expect(readFileSync(join(dir, 'conversations', `${plain.cid}.jsonl`), 'utf8')).not.toContain('"title"');
    const unsaved = await drainTurn(open('echo', { title: 'kites', store: null, record: false }).send('one', signal()));
    expect(unsaved.status).toBe('complete');
    expect(unsaved.result.text).toBe('one');
  });
});

describe('a store with record false (--no-save while continuing)', () => {
  it('creates no conversation for a new chat: no id, nothing on disk', async () => {
    const conversation = open('echo', { record: false });
    const outcome = await drainTurn(conversation.send('one', signal()));
    expect(outcome.status).toBe('complete');
    expect(conversation.cid).toBeNull();
    expect(store.list()).toEqual([]);
  });
});

describe('/retry', () => {
  it('names the turn it replaces in the saved record', async () => {
    const conversation = open('echo');
    await drainTurn(conversation.send('one', signal()));
    await drainTurn(conversation.retry(signal()));
    const users = records(conversation.cid!).filter((r) => r.type === 'user');
    expect(users).toHaveLength(2);
    expect(users[1]!.supersedes).toBe(users[0]!.turn);
    // A second /retry replaces the first one's answer, not the original.
    await drainTurn(conversation.retry(signal()));
    const again = records(conversation.cid!).filter((r) => r.type === 'user');
    expect(again[2]!.supersedes).toBe(again[1]!.turn);
  });

  it('with no summary in effect, there is still none after it', async () => {
    const conversation = open('echo');
    await drainTurn(conversation.send('one', signal()));
    await drainTurn(conversation.retry(signal()));
    expect(conversation.currentSummary!()).toBeNull();
  });

  it('of a turn after the summary leaves what the summary covers as it was', async () => {
    const cid = savedTurns('echo', 4);
    const ids = store.load(cid).turns.map((t) => t.id);
    store.appendSummary(cid, { content: 'We spoke of kites.', turns: 2, through: ids[1], model: 'echo', api: 'chat', usage: { input_tokens: null, output_tokens: null } });
    const conversation = open('echo', { resume: store.load(cid) });
    expect(conversation.currentSummary!()).toEqual({ text: 'We spoke of kites.', covered: 2 });
    await drainTurn(conversation.retry(signal()));
    expect(conversation.currentSummary!()).toEqual({ text: 'We spoke of kites.', covered: 2 });
    // The retried turn and the one before it (after the summary) are sent; the covered two are not.
    expect(bodies().at(-1)!.messages.map((m) => m.content)).toEqual(['Summary of the earlier conversation: We spoke of kites.', longPrompt(2), longPrompt(2), longPrompt(3)]);
  });
});

describe('the context window (SPEC §17)', () => {
  it('is asked only when there are earlier turns to fit, and never for --context full', async () => {
    const asked: string[] = [];
    const contextWindow = (model: string) => {
      asked.push(model);
      return undefined;
    };
    const fresh = open('echo', { contextWindow });
    fresh.request('hello');
    expect(asked).toEqual([]);
    const full = resumed('echo', 2, { contextWindow, contextMode: { kind: 'full' } });
    full.request('hello');
    expect(asked).toEqual([]);
    const auto = resumed('echo', 2, { contextWindow });
    auto.request('hello');
    expect(asked).toEqual(['echo']);
  });

  it('on Messages, the answer\'s default limit (4096) is kept out of the window; on Chat Completions only a quarter of it', () => {
    // 30 turns of about 110 tokens: 3300 tokens; a 6000-token window less 4096 holds about 17 of them.
    const window = { contextWindow: () => 6000 };
    const messages = resumed('echo', 30, { ...window, settings: { model: 'echo', api: 'messages', stream: true } });
    const chat = resumed('echo', 30, window);
    const sentTurns = (request: { messages: unknown[] }) => (request.messages.length - 1) / 2;
    expect(sentTurns(chat.request('next'))).toBe(30);
    expect(sentTurns(messages.request('next'))).toBeLessThan(20);
    expect(sentTurns(messages.request('next'))).toBeGreaterThan(10);
    // A limit that is set is what is kept out, on either interface.
    const limited = resumed('echo', 30, { ...window, settings: { model: 'echo', api: 'messages', stream: true, maxTokens: 100 } });
    expect(sentTurns(limited.request('next'))).toBe(30);
  });

  it('a refusal of a new conversation teaches nothing: the next prompts send every turn', async () => {
    const conversation = open('context-10', { store: null, record: false, warn: () => {} });
    const refused = await drainTurn(conversation.send('a prompt longer than ten tokens surely, by quite a few words', signal()));
    expect(refused.status).toBe('error');
    const short = await drainTurn(conversation.send('hi', signal()));
    expect(short.status).toBe('complete');
    // Nothing known of the window: the answered turn goes back with the next prompt.
    expect(conversation.request('yo').messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'yo' },
    ]);
  });
});

describe('a tool loop\'s follow-up (sendToolResults, SPEC §15)', () => {
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];

  it('sends the results as the answer to the calls: no prompt, no files; saved with the results; they go back in later turns', async () => {
    // agent on Messages is a thinking model: a follow-up without its signed thinking block is refused.
    const conversation = open('agent', { tools, settings: { model: 'agent', api: 'messages', stream: true } });
    const called = await drainTurn(conversation.send('call lookup {"q":"kites"}', signal()));
    expect(called.status).toBe('complete');
    const [call] = called.result.tool_calls;
    expect(call).toMatchObject({ name: 'lookup', arguments: { q: 'kites' } });
    const answered = await drainTurn(conversation.sendToolResults!([{ id: call!.id, name: 'lookup', ok: true, text: 'forty-two kites' }], signal()));
    expect(answered.status, answered.error?.message).toBe('complete');
    expect(answered.result.text).toBe('results: forty-two kites');
    expect(conversation.turns.at(-1)).toMatchObject({ prompt: '', attachments: [], toolResults: [{ id: call!.id, text: 'forty-two kites' }] });
    const user = records(conversation.cid!).filter((r) => r.type === 'user').at(-1)!;
    expect(user.content).toBe('');
    expect(user.attachments).toBeUndefined();
    expect(user.tool_results).toEqual([{ id: call!.id, name: 'lookup', ok: true, text: 'forty-two kites' }]);

    // The next prompt sends the results again, as the answer to the call.
    await drainTurn(conversation.send('thanks', signal()));
    const sent = JSON.stringify(bodies().at(-1)!.messages);
    expect(sent).toContain('"tool_result"');
    expect(sent).toContain('forty-two kites');
  });
});

describe('a tool-calling answer\'s reasoning goes back with its calls, whichever form it came in', () => {
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
  const results = (id: string) => [{ id, name: 'lookup', ok: true, text: 'found' }];

  it('Chat Completions: reasoning text only (no blocks) is sent back as reasoning_content', async () => {
    const server = await serve((_req, res, _rec, index) =>
      json(res, 200, {
        id: `c${index}`,
        object: 'chat.completion',
        model: 'thinker',
        choices: [
          index === 0
            ? { index: 0, message: { role: 'assistant', content: null, reasoning_content: 'I need the lookup.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] }, finish_reason: 'tool_calls' }
            : { index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      }),
    );
    const conversation = openConversation({
      ...conversationDeps(gateway.url, store, 'thinker', { tools, store: null, record: false }),
      conn: connection(server.url, { retries: 0 }),
      settings: { model: 'thinker', api: 'chat', stream: false },
    });
    const called = await drainTurn(conversation.send('look it up', signal()));
    expect(called.result.reasoning).toBe('I need the lookup.');
    expect((await drainTurn(conversation.sendToolResults!(results('call_1'), signal()))).status).toBe('complete');
    const assistant = (JSON.parse(server.requests[1]!.body) as Body).messages.find((m) => m.role === 'assistant') as Record<string, unknown>;
    expect(assistant.reasoning_content).toBe('I need the lookup.');
  });

  it('Messages: a redacted thinking block alone (no reasoning text) is sent back first in the assistant turn', async () => {
    const server = await serve((_req, res, _rec, index) =>
      json(res, 200, {
        id: `m${index}`,
        type: 'message',
        role: 'assistant',
        model: 'thinker',
        content: index === 0 ? [{ type: 'redacted_thinking', data: 'sealed' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] : [{ type: 'text', text: 'done' }],
        stop_reason: index === 0 ? 'tool_use' : 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
    const conversation = openConversation({
      ...conversationDeps(gateway.url, store, 'thinker', { tools, store: null, record: false }),
      conn: connection(server.url, { retries: 0 }),
      settings: { model: 'thinker', api: 'messages', stream: false },
    });
    const called = await drainTurn(conversation.send('look it up', signal()));
    expect(called.result.reasoning).toBeNull();
    expect(called.result.tool_calls).toHaveLength(1);
    expect((await drainTurn(conversation.sendToolResults!(results('toolu_1'), signal()))).status).toBe('complete');
    const assistant = (JSON.parse(server.requests[1]!.body) as { messages: { role: string; content: { type: string }[] }[] }).messages.find((m) => m.role === 'assistant')!;
    expect(assistant.content[0]).toEqual({ type: 'redacted_thinking', data: 'sealed' });
  });
});

describe('a store that stops taking writes mid-turn (disk full)', () => {
  it('a complete answer whose record cannot be written: still complete, with the storage error as the turn\'s error', async () => {
    const conversation = open('echo');
    await drainTurn(conversation.send('one', signal()));
    let broke = false;
    const outcome = await drainTurn(conversation.send('two words', signal()), () => {
      if (!broke) broke = Boolean(breakFile(conversation.cid!));
    });
    expect(outcome.status).toBe('complete');
    expect(outcome.result.text).toBe('two words');
    expect(outcome.error?.name).toBe('StorageError');
    expect(outcome.error?.message).toMatch(/^cannot save the conversation to .*\.jsonl: /);
  });

  it('a failed answer whose record cannot be written: the gateway\'s error stands, the storage one is said beside it', async () => {
    const warnings: string[] = [];
    const conversation = open('error-event', { warn: (line) => warnings.push(line) });
    let broke = false;
    const outcome = await drainTurn(conversation.send('x', signal()), () => {
      if (!broke) broke = Boolean(breakFile(conversation.cid!));
    });
    expect(outcome.status).toBe('error');
    expect(outcome.error?.name).toBe('ServerStreamError');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^cannot save the conversation to .*\.jsonl: .* \(fix it, set GATECHAT_DATA_DIR, or use --no-save\)$/);
  });

  it('with no one to tell (no warn hook), a failed answer whose record cannot be written still ends with its own error', async () => {
    const conversation = open('error-event');
    let broke = false;
    const outcome = await drainTurn(conversation.send('x', signal()), () => {
      if (!broke) broke = Boolean(breakFile(conversation.cid!));
    });
    expect(outcome.status).toBe('error');
    expect(outcome.error?.name).toBe('ServerStreamError');
  });

  it('a compaction whose summary cannot be written changes nothing: an error, the turns still sent', async () => {
    const conversation = resumed('echo', 2);
    breakFile(conversation.cid!);
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.name).toBe('StorageError');
    expect(outcome.result.text).not.toBe('');
    expect(outcome.compaction).toBeUndefined();
    expect(conversation.currentSummary!()).toBeNull();
    expect(conversation.request('next').messages).toHaveLength(5);
  });

  it('a long answer is saved in parts of at least 256 KiB each, the rest in its final record', async () => {
    const conversation = open('big-1', { retainText: false });
    await drainTurn(conversation.send('long', signal()));
    const parts = records(conversation.cid!).filter((r) => r.type === 'answer_part').map((r) => String(r.content).length);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.length).toBeLessThanOrEqual(4);
    for (const size of parts) expect(size).toBeGreaterThanOrEqual(256 * 1024);
  });

  it('a part the store could not take stops the saving for good: nothing more of that answer is written, even once the disk has room again', async () => {
    const conversation = open('big-1', { retainText: false });
    let streamed = 0;
    let restore: (() => void) | null = null;
    let restored = false;
    const outcome = await drainTurn(conversation.send('long', signal()), (e) => {
      if (e.type !== 'text') return;
      streamed += e.delta.length;
      if (!restore) restore = breakFile(conversation.cid!);
      else if (!restored && streamed > 600 * 1024) {
        restore();
        restored = true;
      }
    });
    expect(restored).toBe(true);
    expect(outcome.status).toBe('complete');
    expect(outcome.error?.name).toBe('StorageError');
    // Only the prompt (written before the fault) is on disk: no part after it, no final record.
    expect(records(conversation.cid!).map((r) => r.type)).toEqual(['meta', 'user']);
  });
});

describe('a compaction too long for the model (SPEC §17)', () => {
  it('is fitted again to the window the refusal named, still without --schema, and covers every turn', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    const conversation = resumed('context-2000', 30, { answerSchema: { schema, check: await compileAnswerSchema(schema) }, warn: () => {} });
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(outcome.compaction?.turns).toBe(30);
    const [refused, fitted] = gateway.requests.map((r) => r.body as Body & { response_format?: unknown });
    expect(gateway.requests).toHaveLength(2);
    expect(refused!.messages).toHaveLength(61);
    expect(fitted!.messages.length).toBeLessThan(61);
    expect(fitted!.messages.at(-1)).toEqual({ role: 'user', content: compactionPrompt('') });
    expect(fitted!.response_format).toBeUndefined();
  });
});

describe('a compaction that fails', () => {
  it('keeps the gateway\'s error, and a cancelled one is cancelled', async () => {
    const failing = resumed('fail-500', 2);
    const failed = await drainTurn(failing.compact!('', signal()));
    expect(failed.status).toBe('error');
    expect(failed.error?.message).toMatch(/simulated 500/);
    const conversation = open('echo', { store: null, record: false });
    await drainTurn(conversation.send('one', signal()));
    conversation.update({ model: 'slow-30' });
    const controller = new AbortController();
    const cancelled = await drainTurn(conversation.compact!('', controller.signal), () => controller.abort());
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error?.message).toBe('cancelled');
    expect(conversation.currentSummary!()).toBeNull();
  });
});

describe('a compaction that stops before a tool call still unanswered', () => {
  /** Turns: two echoed, a prompt never answered, another echoed, then an answer that called a tool (not covered). */
  function withPendingCall(extra: Partial<ConversationDeps> = {}): GatewayConversationApi {
    const cid = savedTurns('echo', 2);
    store.appendUser(cid, 'lost');
    store.appendAssistant(cid, { ...savedAnswer('third answer'), turn: store.appendUser(cid, 'third') });
    store.appendAssistant(cid, { ...savedAnswer('', { tool_calls: [{ id: 'call_1', name: 'lookup', arguments: {} }], finish_reason: 'tool_calls' }), turn: store.appendUser(cid, 'use the tool') });
    return open('echo', { resume: store.load(cid), ...extra });
  }

  it('asks with the turns it covers only, and says what they held and which turn it ends with', async () => {
    const conversation = withPendingCall();
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(bodies().at(-1)!.messages.map((m) => m.content)).toEqual([longPrompt(0), longPrompt(0), longPrompt(1), longPrompt(1), 'third', 'third answer', compactionPrompt('')]);
    const turns = store.load(conversation.cid!).turns;
    // The prompt never answered is not sent, so it is not counted either.
    const covered = textTokens(longPrompt(0)) * 2 + textTokens(longPrompt(1)) * 2 + textTokens('third') + textTokens('third answer');
    expect(outcome.compaction).toStrictEqual({ turns: 4, through: turns[3]!.id, coveredTokens: covered, summaryTokens: textTokens(outcome.result.text) });
    expect(conversation.currentSummary!()).toEqual({ text: outcome.result.text, covered: 4 });
  });

  it('--context last fits the covered turns alone', async () => {
    const conversation = withPendingCall({ contextMode: { kind: 'last', turns: 1 }, warn: () => {} });
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(bodies().at(-1)!.messages.map((m) => m.content)).toEqual(['third', 'third answer', compactionPrompt('')]);
  });

  it('turns with no saved id (not recorded): the compaction names no turn', async () => {
    const conversation = open('echo', { store: null, record: false });
    await drainTurn(conversation.send('one', signal()));
    await drainTurn(conversation.send('two', signal()));
    const outcome = await drainTurn(conversation.compact!('', signal()));
    expect(outcome.status).toBe('complete');
    expect(outcome.compaction).toStrictEqual({ turns: 2, coveredTokens: textTokens('one') * 2 + textTokens('two') * 2, summaryTokens: textTokens(outcome.result.text) });
  });
});

describe('what is said when earlier turns are left out', () => {
  const warned = () => {
    const lines: string[] = [];
    return { lines, warn: (line: string) => lines.push(line) };
  };

  it('--context last with a known window: the window is named when it leaves out more than --context does', async () => {
    const { lines, warn } = warned();
    const conversation = resumed('echo', 30, { contextMode: { kind: 'last', turns: 25 }, contextWindow: () => 2000, warn });
    await drainTurn(conversation.send('now', signal()));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^left out the \d+ oldest turns \(about \d+ tokens\) to fit echo's context window of 2000 tokens \(--context full sends them all\)$/);
  });

  it('with no one to tell (no warn hook) the turn still goes out fitted', async () => {
    const conversation = resumed('echo', 30, { contextWindow: () => 2000 });
    const outcome = await drainTurn(conversation.send('now', signal()));
    expect(outcome.status).toBe('complete');
    expect(conversation.turns.at(-1)!.omittedTurns).toBeGreaterThan(0);
  });

  it('--context last with a window that holds them: --context is named', async () => {
    const { lines, warn } = warned();
    const conversation = resumed('echo', 30, { contextMode: { kind: 'last', turns: 5 }, contextWindow: () => 100_000, warn });
    await drainTurn(conversation.send('now', signal()));
    expect(lines).toEqual([expect.stringMatching(/^left out the 25 oldest turns \(about \d+ tokens\) \(--context 5\)$/)]);
  });

  it('--context last: a turn never sent does not count towards what --context leaves out', async () => {
    // 30 sent turns of 114 tokens each and one never answered; the last 25 need 2855 tokens, a
    // 3800-token window (less a quarter for the answer) holds 24: one more than --context left out.
    const cid = savedTurns('echo', 30);
    store.appendUser(cid, 'lost');
    const { lines, warn } = warned();
    const conversation = open('echo', { resume: store.load(cid), contextMode: { kind: 'last', turns: 25 }, contextWindow: () => 3800, warn, record: false });
    expect((conversation.request('now').messages.length - 1) / 2).toBe(24);
    await drainTurn(conversation.send('now', signal()));
    expect(lines).toEqual([expect.stringMatching(/^left out the 6 oldest turns \(about \d+ tokens\) to fit echo's context window of 3800 tokens/)]);
  });
  it('--context last without a window: turns kept with a tool call\'s results leave out more, still --context\'s doing', async () => {
    const cid = store.create({ model: 'echo', api: 'chat', system: null });
    store.appendAssistant(cid, { ...savedAnswer('first answer'), turn: store.appendUser(cid, 'first') });
    store.appendAssistant(cid, { ...savedAnswer('', { tool_calls: [{ id: 'call_1', name: 'lookup', arguments: {} }], finish_reason: 'tool_calls' }), turn: store.appendUser(cid, 'use the tool') });
    store.appendAssistant(cid, { ...savedAnswer('found it'), turn: store.appendUser(cid, '', { toolResults: [{ id: 'call_1', name: 'lookup', ok: true, text: 'found' }] }) });
    store.appendAssistant(cid, { ...savedAnswer('last answer'), turn: store.appendUser(cid, 'last') });
    const { lines, warn } = warned();
    // The last two would begin with the results of a call left out: the three oldest go.
    const conversation = open('echo', { resume: store.load(cid), contextMode: { kind: 'last', turns: 2 }, warn, record: false });
    await drainTurn(conversation.send('now', signal()));
    expect(lines).toEqual([expect.stringMatching(/^left out the 3 oldest turns \(about \d+ tokens\) \(--context 2\)$/)]);
  });
});

describe('a refusal for length from a gateway that counts differently (SPEC §17)', () => {
  const refusing = (message: string) =>
    serve((req, res, recorded, index) => {
      if (index === 0) return json(res, 400, { error: { message, type: 'invalid_request_error', code: null } });
      const messages = (JSON.parse(recorded.body) as Body).messages;
      json(res, 200, {
        id: `c${index}`,
        object: 'chat.completion',
        model: 'thinker',
        choices: [{ index: 0, message: { role: 'assistant', content: String(messages.at(-1)!.content) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      });
    });
  const through = (url: string, extra: Partial<ConversationDeps>) => {
    const cid = savedTurns('thinker', 30);
    return openConversation({
      ...conversationDeps(gateway.url, store, 'thinker', { resume: store.load(cid), record: false, ...extra }),
      conn: connection(url, { retries: 0 }),
      settings: { model: 'thinker', api: 'chat', stream: false },
    });
  };
  const turnTokens = 2 * textTokens(longPrompt(0));

  it('no window in its words: three quarters of what was sent is taken as the window, "at most", learned', async () => {
    const server = await refusing('Your request exceeded the context length of this model.');
    const warnings: string[] = [];
    const conversation = through(server.url, { warn: (line) => warnings.push(line) });
    const outcome = await drainTurn(conversation.send('next?', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(server.requests).toHaveLength(2);
    const window = Math.floor(((textTokens('next?') + 30 * turnTokens) * 3) / 4);
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^left out the \\d+ oldest turns \\(about \\d+ tokens\\) to fit thinker's context window of at most ${window} tokens \\(learned from the gateway's refusal; remembered\\) \\(--context full sends them all\\)$`)),
    ]);
  });

  it('a window known and fitted to, refused all the same: a smaller budget for the session, not recorded as the window', async () => {
    const server = await refusing("This model's maximum context length is 2000 tokens. However, you requested more.");
    const warnings: string[] = [];
    const learned: unknown[] = [];
    const conversation = through(server.url, { contextWindow: () => 2000, warn: (line) => warnings.push(line), onLearned: async (_m, facts) => void learned.push(facts) });
    const outcome = await drainTurn(conversation.send('next?', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(server.requests).toHaveLength(2);
    // Fitted to 2000 less a quarter: 13 turns (1488 tokens) were sent; 85 % of that is the new budget.
    const kept = ((JSON.parse(server.requests[0]!.body) as Body).messages.length - 1) / 2;
    expect(kept).toBe(13);
    const budget = Math.floor((textTokens('next?') + kept * turnTokens) * 0.85);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^left out the 17 oldest turns \(about \d+ tokens\) to fit thinker's context window of 2000 tokens \(--context full sends them all\)$/);
    expect(warnings[1]).toMatch(
      new RegExp(`^left out the \\d+ oldest turns \\(about \\d+ tokens\\) to fit thinker's context window of at most ${budget} tokens \\(the gateway counted more tokens than estimated\\) \\(--context full sends them all\\)$`),
    );
    expect(learned).toEqual([]);
  });

  it('a window larger than the one named: the named one is learned and recorded', async () => {
    const server = await refusing("This model's maximum context length is 2000 tokens. However, you requested more.");
    const warnings: string[] = [];
    const learned: unknown[] = [];
    const conversation = through(server.url, { contextWindow: () => 3000, warn: (line) => warnings.push(line), onLearned: async (_m, facts) => void learned.push(facts) });
    const outcome = await drainTurn(conversation.send('next?', signal()));
    expect(outcome.status, outcome.error?.message).toBe('complete');
    expect(learned).toEqual([{ context: 2000 }]);
    expect(warnings[1]).toMatch(/to fit thinker's context window of 2000 tokens \(learned from the gateway's refusal; remembered\)/);
  });

  it('refused again once fitted: the second refusal stands, nothing more is tried', async () => {
    const server = await serve((_req, res) => json(res, 400, { error: { message: 'Your request exceeded the context length of this model.', type: 'invalid_request_error', code: null } }));
    const conversation = through(server.url, { warn: () => {} });
    const outcome = await drainTurn(conversation.send('next?', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toMatch(/exceeded the context length/);
    expect(server.requests).toHaveLength(2);
  });

  it('everything already left out: the refusal stands, asked once', async () => {
    const server = await refusing("This model's maximum context length is 10 tokens. However, you requested more.");
    const cid = store.create({ model: 'thinker', api: 'chat', system: null });
    store.appendAssistant(cid, { ...savedAnswer('an answer'), turn: store.appendUser(cid, 'a question') });
    const conversation = openConversation({
      ...conversationDeps(gateway.url, store, 'thinker', { resume: store.load(cid), record: false, contextWindow: () => 10, warn: () => {} }),
      conn: connection(server.url, { retries: 0 }),
      settings: { model: 'thinker', api: 'chat', stream: false },
    });
    const outcome = await drainTurn(conversation.send('a prompt longer than ten tokens on its own', signal()));
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toMatch(/maximum context length is 10 tokens/);
    expect(server.requests).toHaveLength(1);
  });
});
