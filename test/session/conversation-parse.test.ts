// Reading a conversation file line by line (SPEC §6): what a damaged, edited or torn file reads back
// as, and the problem each skipped thing is named with, so that one bad line never costs the rest.
import { describe, expect, it } from 'vitest';
import { headerless, parseConversation, parseRecords } from '../../src/session/conversation-parse.js';

const meta = { type: 'meta', v: 1, cid: 'c1', created: '2026-01-01T00:00:00Z', model: 'echo', api: 'chat' };
const user = { type: 'user', turn: 't1', ts: '2026-01-01T00:00:01Z', content: 'hi' };
const answer = {
  type: 'assistant',
  turn: 't1',
  ts: '2026-01-01T00:00:02Z',
  content: 'hello',
  reasoning: null,
  tool_calls: [],
  status: 'complete',
  finish_reason: 'stop',
  raw_finish_reason: 'stop',
  usage: { input_tokens: 3, output_tokens: 1 },
  model: 'echo',
  api: 'chat',
  params: { stream: true },
  timings: { first_token_ms: 5, total_ms: 9 },
};
const file = (...records: unknown[]) => records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

describe('parseConversation', () => {
  it('reads a whole file without problems, records in file order', () => {
    const parsed = parseConversation('c1', file(meta, user, answer));
    expect(parsed.problems).toEqual([]);
    expect(parsed.meta).toEqual(meta);
    expect(parsed.records).toEqual([user, answer]);
  });

  it('a file without header is read with one dated at its first record, no model, chat', () => {
    const parsed = parseConversation('c1', file(user, answer));
    expect(parsed.meta).toEqual({ type: 'meta', v: 1, cid: 'c1', created: user.ts, model: '', api: 'chat' });
    expect(headerless('c9', [])).toEqual({ type: 'meta', v: 1, cid: 'c9', created: '', model: '', api: 'chat' });
  });

  it('names torn lines once, in one phrase, before the other problems, and keeps every other line', () => {
    const one = parseConversation('c1', file(meta, '{"type":"user","con', user, answer));
    expect(one.problems).toEqual(['line 2 is not a whole record']);
    expect(one.records).toEqual([user, answer]);
    const two = parseConversation('c1', file(meta, 'garbage', user, '[1,2]', '{"no":"type"}', { ...answer, content: 5 }));
    expect(two.problems).toEqual(['lines 2, 4, 5 are not a whole record', 'line 6: "content" is not a string (skipped)']);
    expect(two.records).toEqual([user]);
  });

  it('blank and whitespace-only lines are no problem', () => {
    const parsed = parseConversation('c1', `${JSON.stringify(meta)}\n\n   \n${JSON.stringify(user)}\n`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.records).toEqual([user]);
  });

  it('numbers lines from firstLine when reading from the middle of a file', () => {
    const parsed = parseRecords('c1', file('torn', { ...user, content: 1 }), 10);
    expect(parsed.meta).toBeUndefined();
    expect(parsed.problems).toEqual(['line 10 is not a whole record', 'line 11: "content" is not a string (skipped)']);
  });

  it('recovers a whole record glued to the fragment a crashed writer left', () => {
    const glued = `{"type":"assistant","content":"half${JSON.stringify(user)}`;
    const parsed = parseConversation('c1', file(meta, glued, answer));
    expect(parsed.records).toEqual([user, answer]);
    expect(parsed.problems).toEqual(['line 2 begins with a torn record']);
  });

  it('recovers the later of two record starts when the first does not parse', () => {
    const glued = `xx{"type":"user","con{"type":"us${JSON.stringify(user)}`;
    expect(parseConversation('c1', file(meta, glued)).records).toEqual([user]);
    // A record start at the very beginning is the line itself, which did not parse: nothing to recover.
    expect(parseConversation('c1', file(meta, '{"type":"user"')).problems).toEqual(['line 2 is not a whole record']);
  });

  it('only the first header counts; a header naming another conversation keeps the file name as id', () => {
    const parsed = parseConversation('c1', file({ ...meta, cid: 'other' }, { ...meta, model: 'second' }));
    expect(parsed.meta).toMatchObject({ cid: 'c1', model: 'echo' });
    expect(parsed.problems).toEqual(['its header names other, not c1']);
    expect(parseConversation('c1', file({ ...meta, cid: 7 })).problems).toEqual(['its header names no id, not c1']);
  });

  it('a header field of the wrong type is named and replaced', () => {
    const parsed = parseConversation('c1', file({ ...meta, model: 3, api: 'soap', system: 5, created: 9 }));
    expect(parsed.meta).toEqual({ type: 'meta', v: 1, cid: 'c1', created: '', model: '', api: 'chat' });
    expect(parsed.problems).toEqual(['line 1: "model" is not a string', 'line 1: "api" is neither chat nor messages', 'line 1: "system" is not a string']);
    const good = parseConversation('c1', file({ ...meta, api: 'messages', system: null }));
    expect(good.problems).toEqual([]);
    expect(good.meta).toMatchObject({ api: 'messages', system: null });
    expect(parseConversation('c1', file({ ...meta, system: 'be brief' })).meta.system).toBe('be brief');
  });

  it('a record whose turn is not a string is skipped; a missing ts reads as empty', () => {
    const parsed = parseConversation('c1', file(meta, { ...user, turn: 4 }, { type: 'user', content: 'no ts' }));
    expect(parsed.problems).toEqual(['line 2: "turn" is not a string (skipped)']);
    expect(parsed.records).toEqual([{ type: 'user', ts: '', content: 'no ts' }]);
  });

  it('answer parts are kept as written', () => {
    const part = { type: 'answer_part', turn: 't1', ts: 'x', content: 'par' };
    expect(parseConversation('c1', file(meta, part)).records).toEqual([part]);
  });

  it('records of an unknown type are passed over silently', () => {
    const parsed = parseConversation('c1', file(meta, { type: 'from-the-future', x: 1 }, user));
    expect(parsed.problems).toEqual([]);
    expect(parsed.records).toEqual([user]);
  });

  it('titles: a text is kept, anything else is named', () => {
    const parsed = parseConversation('c1', file(meta, { type: 'title', ts: 'a', title: 'Trip' }, { type: 'title', title: 5 }, { type: 'title', title: '  ' }, { type: 'title', title: 'no ts' }));
    expect(parsed.records).toEqual([
      { type: 'title', ts: 'a', title: 'Trip' },
      { type: 'title', ts: '', title: 'no ts' },
    ]);
    expect(parsed.problems).toEqual(['line 3: "title" is not a text (ignored)', 'line 4: "title" is not a text (ignored)']);
  });
});

describe('prompt records', () => {
  const text = { kind: 'text', path: 'a.txt', text: 'A' };
  const image = { kind: 'image', path: 'a.png', mime: 'image/png', sha256: 'ab', bytes: 3 };
  const pdf = { kind: 'pdf', path: 'a.pdf', sha256: 'cd', bytes: 4 };
  const one = (record: Record<string, unknown>) => parseConversation('c1', file(meta, { ...user, ...record }));

  it('keeps every good attachment kind and leaves out damaged ones, naming them', () => {
    expect(one({ attachments: [text, image, pdf] })).toMatchObject({ problems: [], records: [{ attachments: [text, image, pdf] }] });
    const damaged = [
      { kind: 'text', path: 'b' },
      { kind: 'image', path: 'b', sha256: 'x', bytes: 1 },
      { kind: 'image', path: 'b', mime: 'image/png', bytes: 1 },
      { kind: 'image', path: 'b', mime: 'image/png', sha256: 'x' },
      { kind: 'pdf', path: 'b', bytes: 1 },
      { kind: 'pdf', path: 'b', sha256: 'x' },
      { kind: 'audio', path: 'b' },
      { kind: 'text', text: 'no path' },
      'str',
    ];
    for (const bad of damaged) {
      const parsed = one({ attachments: [text, bad] });
      expect(parsed.problems, JSON.stringify(bad)).toEqual(['line 2: an attachment record is damaged (left out)']);
      expect((parsed.records[0] as { attachments: unknown }).attachments).toEqual([text]);
    }
  });

  it('attachments that are all damaged, or not a list, are dropped with a problem', () => {
    for (const attachments of [[{ kind: 'x' }], 'a.txt', { 0: text }]) {
      const parsed = one({ attachments });
      expect(parsed.problems).toEqual(['line 2: an attachment record is damaged (left out)']);
      expect(parsed.records[0]).not.toHaveProperty('attachments');
    }
    expect(one({ attachments: [] }).records[0]).not.toHaveProperty('attachments');
    expect(one({ attachments: [] }).problems).toEqual([]);
  });

  it('keeps good tool results and leaves out damaged ones', () => {
    const good = { id: 'c', name: 'n', ok: true, text: 'r' };
    expect(one({ tool_results: [good] })).toMatchObject({ problems: [], records: [{ tool_results: [good] }] });
    for (const bad of [{ ...good, id: 1 }, { ...good, name: 1 }, { ...good, ok: 'yes' }, { ...good, text: null }, 'x']) {
      const parsed = one({ tool_results: [good, bad] });
      expect(parsed.problems, JSON.stringify(bad)).toEqual(['line 2: a tool result is damaged (left out)']);
      expect((parsed.records[0] as { tool_results: unknown }).tool_results).toEqual([good]);
    }
    // Not a list at all is damage too, named like a damaged attachment list.
    const none = one({ tool_results: 'x' });
    expect(none.records[0]).not.toHaveProperty('tool_results');
    expect(none.problems).toEqual(['line 2: a tool result is damaged (left out)']);
    expect(one({ tool_results: [] }).problems).toEqual([]);
  });

  it('retry, supersedes and keep are kept only in their written form; settings only as an object', () => {
    expect(one({ retry: true, supersedes: 't0', keep: true, settings: { model: 'm', api: 'chat' } }).records[0]).toEqual({
      ...user,
      retry: true,
      supersedes: 't0',
      keep: true,
      settings: { model: 'm', api: 'chat' },
    });
    const wrong = one({ retry: 'yes', supersedes: 3, keep: 1, settings: 'm' });
    expect(wrong.records[0]).toEqual(user);
    expect(wrong.problems).toEqual(['line 2: "settings" is not an object']);
  });
});

describe('answer records', () => {
  const one = (record: Record<string, unknown>) => parseConversation('c1', file(meta, user, { ...answer, ...record }));
  const read = (record: Record<string, unknown>) => one(record).records[1] as unknown as Record<string, unknown>;

  it('a whole answer reads back unchanged and without problems', () => {
    expect(one({}).problems).toEqual([]);
    expect(read({})).toEqual(answer);
  });

  it('fields of the wrong type fall back and are named together', () => {
    const parsed = one({ reasoning: 3, status: 'done', finish_reason: 1, raw_finish_reason: {}, model: 2, api: 'soap', params: 'x', usage: 'x', timings: [] });
    expect(parsed.problems).toEqual([
      'line 3: "usage", "timings", "reasoning", "status", "finish_reason", "raw_finish_reason", "model", "api", "params" of the wrong type or missing',
    ]);
    expect(parsed.records[1]).toMatchObject({
      reasoning: null,
      status: 'interrupted',
      finish_reason: null,
      raw_finish_reason: null,
      model: null,
      api: 'chat',
      params: { stream: true },
      usage: { input_tokens: null, output_tokens: null },
      timings: { first_token_ms: null, total_ms: 0 },
    });
  });

  it('an answer without status is not passed off as complete', () => {
    const { status: _status, ...rest } = answer;
    const parsed = parseConversation('c1', file(meta, rest));
    expect(parsed.records[0]).toMatchObject({ status: 'interrupted' });
    expect(parsed.problems).toEqual(['line 2: "status" of the wrong type or missing']);
  });

  it('each status, api and nullable field of the right type is kept', () => {
    for (const status of ['complete', 'interrupted', 'cancelled', 'error']) expect(read({ status }).status).toBe(status);
    expect(read({ api: 'messages' }).api).toBe('messages');
    expect(read({ reasoning: 'thought', finish_reason: null, raw_finish_reason: null, model: null })).toMatchObject({
      reasoning: 'thought',
      finish_reason: null,
      raw_finish_reason: null,
      model: null,
    });
    expect(read({ params: { stream: false } }).params).toEqual({ stream: false });
  });

  it('missing optional fields take their defaults without a problem', () => {
    const minimal = { type: 'assistant', turn: 't1', content: 'x', status: 'complete' };
    const parsed = parseConversation('c1', file(meta, minimal));
    expect(parsed.problems).toEqual([]);
    expect(parsed.records[0]).toEqual({
      ...minimal,
      ts: '',
      reasoning: null,
      tool_calls: [],
      finish_reason: null,
      raw_finish_reason: null,
      usage: { input_tokens: null, output_tokens: null },
      model: null,
      api: 'chat',
      params: { stream: true },
      timings: { first_token_ms: null, total_ms: 0 },
    });
  });

  it('token counts: numbers and null kept, anything else unknown; cache counts only when written', () => {
    expect(read({ usage: { input_tokens: null, output_tokens: 4, cache_read_tokens: 2, cache_write_tokens: null } }).usage).toEqual({
      input_tokens: null,
      output_tokens: 4,
      cache_read_tokens: 2,
      cache_write_tokens: null,
    });
    expect(read({ usage: { input_tokens: 'x', output_tokens: Infinity, cache_read_tokens: 'y', cache_write_tokens: {} } }).usage).toEqual({
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_write_tokens: null,
    });
    expect(read({ usage: { input_tokens: 1, output_tokens: 2 } }).usage).toEqual({ input_tokens: 1, output_tokens: 2 });
  });

  it('timings: a first-token time and total kept, others fall back', () => {
    expect(read({ timings: { first_token_ms: null, total_ms: 7 } }).timings).toEqual({ first_token_ms: null, total_ms: 7 });
    expect(read({ timings: { first_token_ms: 'x', total_ms: '7' } }).timings).toEqual({ first_token_ms: null, total_ms: 0 });
  });

  it('a cost is kept only in the form SPEC §16 writes; otherwise unknown (null); absent stays absent', () => {
    expect(read({ cost: { usd: 0.5, source: 'gateway' } }).cost).toEqual({ usd: 0.5, source: 'gateway' });
    expect(read({ cost: { usd: 0.5, source: 'prices' } }).cost).toEqual({ usd: 0.5, source: 'prices' });
    for (const cost of [{ usd: '1', source: 'gateway' }, { usd: NaN, source: 'gateway' }, { usd: 1, source: 'guess' }, 3, null]) expect(read({ cost }).cost).toBeNull();
    expect(read({})).not.toHaveProperty('cost');
  });

  it('tool calls: the good ones kept, a damaged one left out and named', () => {
    const call = { id: 'a', name: 'f', arguments: '{}' };
    expect(read({ tool_calls: [call] }).tool_calls).toEqual([call]);
    for (const bad of [{ id: 1, name: 'f' }, { id: 'a', name: 2 }, 'x']) {
      const parsed = one({ tool_calls: [call, bad] });
      expect((parsed.records[1] as { tool_calls: unknown }).tool_calls).toEqual([call]);
      expect(parsed.problems).toEqual(['line 3: "tool_calls" of the wrong type or missing']);
    }
    expect(one({ tool_calls: 'x' }).problems).toEqual(['line 3: "tool_calls" of the wrong type or missing']);
  });

  it('an error with a message is kept (exit code 1 when unreadable); any other error is dropped', () => {
    expect(read({ status: 'error', error: { message: 'boom', exit_code: 6 } }).error).toEqual({ message: 'boom', exit_code: 6 });
    expect(read({ status: 'error', error: { message: 'boom', exit_code: '6', extra: 1 } }).error).toEqual({ message: 'boom', exit_code: 1 });
    const bad = one({ status: 'error', error: { exit_code: 6 } });
    expect(bad.records[1]).not.toHaveProperty('error');
    expect(bad.problems).toEqual(['line 3: "error" of the wrong type or missing']);
    expect(read({ error: 'boom' })).not.toHaveProperty('error');
  });
});

describe('summary records', () => {
  const summary = { type: 'summary', ts: 's', content: 'gist', turns: 2 };
  const one = (record: Record<string, unknown>) => parseConversation('c1', file(meta, { ...summary, ...record }));

  it('reads a summary with its defaults, and every optional field when written', () => {
    expect(one({}).records).toEqual([{ ...summary, model: null, api: 'chat', usage: { input_tokens: null, output_tokens: null } }]);
    const full = {
      through: 't2',
      model: 'm',
      api: 'messages',
      usage: { input_tokens: 10, output_tokens: 3 },
      cost: { usd: 0.1, source: 'prices' },
      instructions: 'keep names',
    };
    expect(one(full).records).toEqual([{ ...summary, ...full }]);
    expect(one(full).problems).toEqual([]);
  });

  it('optional fields of the wrong type are left out or unknown', () => {
    expect(one({ through: 3, model: 4, api: 'soap', usage: { input_tokens: 'x', output_tokens: Infinity }, cost: { usd: 1 }, instructions: 5, ts: 1 }).records).toEqual([
      { type: 'summary', ts: '', content: 'gist', turns: 2, model: null, api: 'chat', usage: { input_tokens: null, output_tokens: null } },
    ]);
    expect(one({ usage: 'x' }).records[0]).toMatchObject({ usage: { input_tokens: null, output_tokens: null } });
  });

  it('a summary without text or a whole non-negative count of turns is skipped with a problem', () => {
    for (const bad of [{ content: 3 }, { turns: 1.5 }, { turns: -1 }, { turns: '2' }]) {
      const parsed = one(bad);
      expect(parsed.records, JSON.stringify(bad)).toEqual([]);
      expect(parsed.problems).toEqual(['line 2: a summary without its text or count of turns (skipped)']);
    }
    expect(one({ turns: 0 }).records).toHaveLength(1);
  });
});
