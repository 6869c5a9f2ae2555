// How the records of a conversation file become turns (pure): pairing by turn id or by position,
// crashed answers, /retry, summaries, the settings in effect, titles.
import { describe, expect, it } from 'vitest';
import { savedAnswer } from '../helpers/conversation.js';
import { conversationTitle, pairTurns, savedSettings, titleOf, type AssistantRecord, type MetaRecord, type StoredRecord } from '../../src/session/conversation-records.js';

const meta: MetaRecord = { type: 'meta', v: 1, cid: 'c1', created: 'c', model: 'echo', api: 'chat' };
const user = (content: string, extra: Record<string, unknown> = {}): StoredRecord => ({ type: 'user', ts: '', content, ...extra }) as StoredRecord;
const answer = (content: string, extra: Record<string, unknown> = {}): AssistantRecord =>
  ({ type: 'assistant', ts: '', ...savedAnswer(content), ...extra }) as AssistantRecord;
const part = (content: string, turn?: string): StoredRecord => ({ type: 'answer_part', ts: '', content, ...(turn ? { turn } : {}) }) as StoredRecord;
const summary = (turns: number, extra: Record<string, unknown> = {}): StoredRecord =>
  ({ type: 'summary', ts: '', content: 'gist', turns, model: null, api: 'chat', usage: { input_tokens: null, output_tokens: null }, ...extra }) as StoredRecord;
const pair = (...records: StoredRecord[]) => pairTurns(meta, records);
const texts = (records: StoredRecord[]) => pair(...records).turns.map((t) => [t.user, t.assistant?.content ?? null]);

describe('pairTurns', () => {
  it('older files without turn ids pair by position; parts before an answer join it', () => {
    expect(texts([user('a'), part('x'), part('y'), answer('z'), user('b'), answer('B')])).toEqual([
      ['a', 'xyz'],
      ['b', 'B'],
    ]);
  });

  it('without ids, an answer after an answered turn is dropped, and parts of an answered turn do not leak to the next', () => {
    expect(texts([user('a'), answer('A'), answer('again'), part('p'), answer('late'), user('b'), answer('B')])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
    expect(texts([answer('orphan'), user('a')])).toEqual([['a', null]]);
  });

  it('positional parts with no final answer become an interrupted answer, before the next prompt and at the end', () => {
    const { turns } = pair(user('a'), part('x'), part('y'), user('b'), part('z'));
    expect(turns.map((t) => t.assistant?.content)).toEqual(['xy', 'z']);
    expect(turns[0]!.assistant).toEqual({
      type: 'assistant',
      ts: '',
      content: 'xy',
      reasoning: null,
      tool_calls: [],
      status: 'interrupted',
      finish_reason: null,
      raw_finish_reason: null,
      usage: { input_tokens: null, output_tokens: null },
      model: 'echo',
      api: 'chat',
      params: { stream: true },
      timings: { first_token_ms: null, total_ms: 0 },
      error: { message: 'gatechat stopped before the answer ended', exit_code: 1 },
    });
    // A header without model: the crashed answer says no model, and keeps the header's api.
    const bare = pairTurns({ ...meta, model: '', api: 'messages' }, [user('a'), part('x')]).turns[0]!.assistant!;
    expect([bare.model, bare.api]).toEqual([null, 'messages']);
    // No parts at all: no answer.
    expect(pair(user('a'), user('b')).turns.map((t) => t.assistant)).toEqual([null, null]);
  });

  it('by id: parts join their own answer; parts of an answered turn or of no turn are dropped; a second answer is dropped', () => {
    const records = [
      user('a', { turn: 't1' }),
      user('b', { turn: 't2' }),
      part('b1', 't2'),
      part('a1', 't1'),
      part('b2', 't2'),
      answer('B', { turn: 't2' }),
      part('late', 't2'),
      answer('again', { turn: 't2' }),
      answer('nobody', { turn: 't9' }),
      part('nobody', 't9'),
      answer('A', { turn: 't1' }),
    ];
    expect(texts(records)).toEqual([
      ['a', 'a1A'],
      ['b', 'b1b2B'],
    ]);
    // Parts of a turn whose answer never came are its partial (interrupted) answer.
    const crashed = pair(user('a', { turn: 't1' }), part('p', 't1'), part('q', 't1')).turns[0]!.assistant!;
    expect([crashed.content, crashed.status]).toEqual(['pq', 'interrupted']);
  });

  it('records that belong to no prompt change nothing: parts before the first one, a title between a prompt and its answer', () => {
    expect(texts([part('early'), user('a'), answer('A')])).toEqual([['a', 'A']]);
    expect(texts([part('early', 't1'), user('a', { turn: 't1' }), answer('A', { turn: 't1' })])).toEqual([['a', 'A']]);
    expect(texts([user('a'), part('x'), { type: 'title', ts: '', title: 'T' }, answer('y')])).toEqual([['a', 'xy']]);
    // A prompt of an older file has no id at all.
    expect(pair(user('a')).turns[0]).not.toHaveProperty('id');
  });

  it('parts after an answered turn never replace its answer, by position or by id', () => {
    expect(texts([user('a'), answer('A'), part('p'), user('b'), answer('B')])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
    expect(texts([user('a'), answer('A'), part('p')])).toEqual([['a', 'A']]);
    // A turn with an id whose answer came without one (a hand-edited file): its id's parts are not a crash.
    expect(texts([user('a', { turn: 't1' }), part('x', 't1'), answer('A')])).toEqual([['a', 'A']]);
  });

  it('a repeated turn id names only the first prompt', () => {
    const { turns } = pair(user('a', { turn: 't1' }), user('b', { turn: 't1' }), answer('A', { turn: 't1' }));
    expect(turns.map((t) => [t.id, t.user, t.assistant?.content ?? null])).toEqual([
      ['t1', 'a', 'A'],
      [undefined, 'b', null],
    ]);
  });

  it('keeps attachments and tool results only when there are some', () => {
    const attachment = { kind: 'text', path: 'a', text: 'A' };
    const result = { id: 'c', name: 'n', ok: true, text: 'r' };
    const { turns } = pair(user('a', { attachments: [attachment], tool_results: [result] }), user('b', { attachments: [], tool_results: [] }));
    expect(turns[0]).toMatchObject({ attachments: [attachment], toolResults: [result] });
    expect(turns[1]).not.toHaveProperty('attachments');
    expect(turns[1]).not.toHaveProperty('toolResults');
  });

  it('/retry without a named turn supersedes the newest; a plain one drops it, -m keeps it as an alternative', () => {
    expect(texts([user('a'), answer('A'), user('b'), answer('B'), user('b', { retry: true }), answer('B2')])).toEqual([
      ['a', 'A'],
      ['b', 'B2'],
    ]);
    const kept = pair(user('a'), answer('A1'), user('a', { retry: true, keep: true }), answer('A2'), user('a', { retry: true, keep: true }), answer('A3')).turns;
    expect(kept).toHaveLength(1);
    expect(kept[0]!.alternatives!.map((t) => t.assistant!.content)).toEqual(['A1', 'A2']);
    // A plain retry after kept ones: those kept stay, the newest answer is replaced.
    const plain = pair(user('a'), answer('A1'), user('a', { retry: true, keep: true }), answer('A2'), user('a', { retry: true }), answer('A3')).turns;
    expect(plain[0]!.alternatives!.map((t) => t.assistant!.content)).toEqual(['A1']);
    expect(plain[0]!.assistant!.content).toBe('A3');
    // A retry naming no known turn supersedes nothing.
    expect(texts([user('a', { turn: 't1' }), answer('A', { turn: 't1' }), user('b', { retry: true, supersedes: 'tx', turn: 't2' })])).toEqual([
      ['a', 'A'],
      ['b', null],
    ]);
    expect(pair(user('a', { retry: true })).turns[0]).not.toHaveProperty('alternatives');
  });

  it('settings: the header, then each prompt that carried new ones; title records do not count as turns', () => {
    const withSettings = pairTurns({ ...meta, temperature: 0.5 }, [user('a'), { type: 'title', ts: '', title: 'T' }, user('b', { settings: { model: 'm2', api: 'messages', temperature: 1 } })]);
    expect(withSettings.settings).toEqual({ model: 'm2', api: 'messages', temperature: 1 });
    expect(withSettings.turns).toHaveLength(2);
  });

  it('an old header (no recorded settings) takes temperature, max tokens and options from the last answer', () => {
    const params = { stream: true, temperature: 0.2, max_tokens: 50, options: { top_p: 1 } };
    expect(pair(user('a'), answer('A', { params: { stream: true, temperature: 0.9 } }), user('b'), answer('B', { params })).settings).toEqual({
      model: 'echo',
      api: 'chat',
      temperature: 0.2,
      max_tokens: 50,
      options: { top_p: 1 },
    });
    expect(pair(user('a'), answer('A', { params: { stream: true, temperature: '1', max_tokens: '5', options: [1] } })).settings).toEqual({ model: 'echo', api: 'chat' });
    expect(pair(user('a')).settings).toEqual({ model: 'echo', api: 'chat' });
    // The last answer, not the last record: a prompt still waiting for its answer has no params.
    expect(pair(user('a'), answer('A', { params }), user('b')).settings).toMatchObject({ temperature: 0.2, max_tokens: 50 });
    // A header with no usable model or api: none and chat, for flags and config to decide.
    expect(pairTurns({ ...meta, model: 5, api: 'soap' } as unknown as MetaRecord, [user('a')]).settings).toEqual({ model: '', api: 'chat' });
    // A header that recorded any of them is the whole truth: the answer's params are not read.
    for (const key of ['temperature', 'max_tokens', 'options', 'tools']) {
      expect(pairTurns({ ...meta, [key]: null }, [user('a'), answer('A', { params })]).settings).toEqual({ model: 'echo', api: 'chat', [key]: null });
    }
  });

  it('a summary covers the leading turns it counted, or those through the turn it names', () => {
    const s = pair(user('a'), answer('A'), user('b'), answer('B'), summary(5), user('c'), summary(1), summary(2, { through: 'zz' })).summaries;
    expect(s.map((x) => x.covered)).toEqual([2, 1, 2]);
    const byId = pair(user('a', { turn: 't1' }), user('b', { turn: 't2' }), user('c', { turn: 't3' }), summary(1, { through: 't2' })).summaries;
    expect(byId[0]!.covered).toBe(2);
    expect(pair(summary(3)).summaries[0]!.covered).toBe(0);
    // The named turn wins over the count, also when it is the first.
    expect(pair(user('a', { turn: 't1' }), user('b', { turn: 't2' }), summary(2, { through: 't1' })).summaries[0]!.covered).toBe(1);
  });

  it('a turn a later /retry supersedes ends what a summary covers there', () => {
    const { summaries, turns } = pair(user('a'), answer('A'), user('b'), answer('B'), summary(2), user('b', { retry: true }), answer('B2'));
    expect(turns.map((t) => t.assistant?.content)).toEqual(['A', 'B2']);
    expect(summaries[0]!.covered).toBe(1);
  });
});

describe('savedSettings', () => {
  it('keeps each field of the right type, null as none, and falls back for model and api', () => {
    expect(savedSettings({ model: 'm', api: 'messages', system: 's', temperature: 0, max_tokens: 1, options: { a: 1 }, tools: [] }, { model: 'f', api: 'chat' })).toEqual({
      model: 'm',
      api: 'messages',
      system: 's',
      temperature: 0,
      max_tokens: 1,
      options: { a: 1 },
      tools: [],
    });
    expect(savedSettings({ system: null, temperature: null, max_tokens: null, options: null, tools: null }, { model: 'f', api: 'messages' })).toEqual({
      model: 'f',
      api: 'messages',
      system: null,
      temperature: null,
      max_tokens: null,
      options: null,
      tools: null,
    });
    const wrong = { model: 1, api: 'soap', system: 2, temperature: Infinity, max_tokens: 0, options: [1], tools: {} } as unknown as Parameters<typeof savedSettings>[0];
    expect(savedSettings(wrong, { model: 'f', api: 'chat' })).toEqual({ model: 'f', api: 'chat' });
    expect(savedSettings({ max_tokens: 1.5, api: 'chat' }, { model: 'f', api: 'messages' })).toEqual({ model: 'f', api: 'chat' });
  });
});

describe('titles', () => {
  it('the last title record, else the first prompt\'s first non-blank line, else nothing', () => {
    expect(conversationTitle([user('first'), { type: 'title', ts: '', title: 'One' }, { type: 'title', ts: '', title: 'Two' }])).toBe('Two');
    expect(conversationTitle([answer('x'), user('\n  \n  hello there  \nmore'), user('second')])).toBe('hello there');
    expect(conversationTitle([answer('x')])).toBe('');
  });

  it('at most 60 characters, cut with an ellipsis', () => {
    expect(titleOf('x'.repeat(60))).toBe('x'.repeat(60));
    expect(titleOf('x'.repeat(61))).toBe(`${'x'.repeat(59)}…`);
    expect(titleOf('   ')).toBe('');
  });
});
