// ConversationStore operations beyond the round trip (SPEC §6, §17), on real files in a temp dir: ids
// given by their start, what each append writes, titles and summaries, forks, removal and the blobs
// it collects, listings that skip what they cannot read.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { savedAnswer } from '../helpers/conversation.js';
import { UsageError } from '../../src/exit-codes.js';
import { StorageError } from '../../src/storage/storage-error.js';

let root: string;
let data: string;
let store: ConversationStore;
let warnings: string[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-store-'));
  data = join(root, 'data');
  warnings = [];
  store = new ConversationStore(data, { warn: (line) => warnings.push(line) });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const fileOf = (cid: string) => join(data, 'conversations', `${cid}.jsonl`);
const lines = (cid: string) =>
  readFileSync(fileOf(cid), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const answer = savedAnswer('A');
/** A conversation file under a chosen id (ids sort by creation; tests need known ones). */
function put(cid: string, ...records: object[]): void {
  mkdirSync(join(data, 'conversations'), { recursive: true });
  const meta = { type: 'meta', v: 1, cid, created: '2026-01-01T00:00:00.000Z', model: 'echo', api: 'chat' };
  writeFileSync(fileOf(cid), [meta, ...records].map((r) => JSON.stringify(r)).join('\n') + '\n');
}
const image = (text: string) => ({ kind: 'image' as const, path: `${text}.png`, mime: 'image/png' as const, data: Buffer.from(text).toString('base64'), bytes: text.length });

describe('create and append', () => {
  it('the header holds the id, the creation time and the settings', () => {
    const before = Date.now();
    const cid = store.create({ model: 'm', api: 'messages', system: 's' });
    const [meta] = lines(cid);
    expect(meta).toMatchObject({ type: 'meta', v: 1, cid, model: 'm', api: 'messages', system: 's' });
    expect(Date.parse(meta!.created as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(readFileSync(fileOf(cid), 'utf8').endsWith('}\n')).toBe(true);
  });

  it('a prompt records retry, supersedes and keep only for a retry; settings and tool results when given', () => {
    const cid = store.create({ model: 'm', api: 'chat' });
    const plain = store.appendUser(cid, 'q', { supersedes: 'x', keep: true, attachments: [], toolResults: [] });
    expect(plain).toMatch(/^[A-Za-z0-9_-]{8}$/);
    const retry = store.appendUser(cid, 'q', { retry: true, supersedes: plain, keep: true, settings: { model: 'm2', api: 'chat' }, toolResults: [{ id: 'c', name: 'f', ok: false, text: 'no' }] });
    const retryNoKeep = store.appendUser(cid, 'q', { retry: true });
    const [, first, second, third] = lines(cid);
    expect(first).toEqual({ type: 'user', turn: plain, ts: first!.ts, content: 'q' });
    expect(second).toEqual({
      type: 'user',
      turn: retry,
      ts: second!.ts,
      content: 'q',
      retry: true,
      supersedes: plain,
      keep: true,
      settings: { model: 'm2', api: 'chat' },
      tool_results: [{ id: 'c', name: 'f', ok: false, text: 'no' }],
    });
    expect(third).toEqual({ type: 'user', turn: retryNoKeep, ts: third!.ts, content: 'q', retry: true });
    expect(new Set([plain, retry, retryNoKeep]).size).toBe(3);
  });

  it('text attachments are saved inline, images and PDFs by hash in the blob store, and read back whole', () => {
    const cid = store.create({ model: 'm', api: 'chat' });
    const text = { kind: 'text' as const, path: 'a.txt', text: 'hello' };
    const pdf = { kind: 'pdf' as const, path: 'b.pdf', data: Buffer.from('%PDF').toString('base64'), bytes: 4 };
    store.appendUser(cid, 'see', { attachments: [text, image('png'), pdf] });
    const saved = lines(cid)[1]!.attachments as Array<Record<string, unknown>>;
    expect(saved[0]).toEqual(text);
    expect(saved[1]).toEqual({ kind: 'image', path: 'png.png', mime: 'image/png', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: 3 });
    expect(saved[2]).toEqual({ kind: 'pdf', path: 'b.pdf', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: 4 });
    const turn = store.load(cid).turns[0]!;
    expect(store.hydrate(turn.attachments!, cid)).toEqual([text, image('png'), pdf]);
  });

  it('a lost blob is a usage error naming the file and the conversation', () => {
    const cid = store.create({ model: 'm', api: 'chat' });
    store.appendUser(cid, 'see', { attachments: [image('png')] });
    rmSync(join(data, 'blobs'), { recursive: true });
    const turn = store.load(cid).turns[0]!;
    let caught: unknown;
    try {
      store.hydrate(turn.attachments!, cid);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as UsageError).message).toBe(`conversation ${cid}: the attached png.png is missing from ${join(data, 'blobs')}`);
    expect((caught as UsageError).hint).toBe('start a new conversation, or attach the file again');
  });

  it('answer records start with type, then the turn; parts, titles and summaries are stamped', () => {
    const cid = store.create({ model: 'm', api: 'chat' });
    const turn = store.appendUser(cid, 'q');
    store.appendAnswerPart(cid, 'pa');
    store.appendAnswerPart(cid, 'pb', turn);
    store.appendAssistant(cid, { ...answer, turn, ts: '2026-02-02T00:00:00.000Z' });
    store.appendAssistant(cid, answer);
    store.appendTitle(cid, 'Named');
    store.appendSummary(cid, { content: 'gist', turns: 1, model: 'm', api: 'chat', usage: { input_tokens: 1, output_tokens: 1 } });
    const text = readFileSync(fileOf(cid), 'utf8').split('\n');
    expect(text[4]!.startsWith(`{"type":"assistant","turn":"${turn}",`)).toBe(true);
    expect(text[5]!.startsWith('{"type":"assistant","content":')).toBe(true);
    const records = lines(cid);
    expect(records[2]).toEqual({ type: 'answer_part', ts: records[2]!.ts, content: 'pa' });
    expect(records[3]).toEqual({ type: 'answer_part', turn, ts: records[3]!.ts, content: 'pb' });
    expect(records[4]!.ts).toBe('2026-02-02T00:00:00.000Z');
    expect(typeof records[5]!.ts).toBe('string');
    expect(records[5]!.ts).not.toBe('');
    expect(records[6]).toMatchObject({ type: 'title', title: 'Named' });
    expect(records[7]).toMatchObject({ type: 'summary', content: 'gist', turns: 1 });
    for (const r of records.slice(1)) expect(Date.parse(r.ts as string)).not.toBeNaN();
    expect(store.load(cid).summaries).toMatchObject([{ content: 'gist', covered: 1 }]);
    expect(store.records(cid).map((r) => r.type)).toEqual(['meta', 'user', 'answer_part', 'answer_part', 'assistant', 'assistant', 'title', 'summary']);
  });

  it('appending to a conversation removed meanwhile says so, and saves nothing', () => {
    const cid = store.create({ model: 'm', api: 'chat' });
    rmSync(fileOf(cid));
    expect(() => store.appendUser(cid, 'q')).toThrow(UsageError);
    expect(existsSync(fileOf(cid))).toBe(false);
  });
});

describe('resolveId', () => {
  it('an exact id, or the start of exactly one', () => {
    put('20260101-000000-aaaa');
    put('20260101-000000-aaab');
    put('20260202-000000-bbbb');
    expect(store.resolveId('20260101-000000-aaaa')).toBe('20260101-000000-aaaa');
    expect(store.resolveId('202602')).toBe('20260202-000000-bbbb');
    expect(() => store.resolveId('2027')).toThrow(new UsageError('no conversation with id 2027: see gatechat history list'));
    expect(() => store.resolveId('../x')).toThrow('not a conversation id: "../x" (see: gatechat history list)');
  });

  it('an exact id that is also the start of others is that one', () => {
    put('abc');
    put('abcd');
    expect(store.resolveId('abc')).toBe('abc');
  });

  it('several matches: a usage error naming the newest ten and how many more', () => {
    for (let i = 0; i < 12; i++) put(`20260101-0000${String(i).padStart(2, '0')}-aaaa`);
    expect(() => store.resolveId('2026')).toThrow(
      '2026 matches 12 conversations: ' +
        Array.from({ length: 10 }, (_, i) => `20260101-0000${String(11 - i).padStart(2, '0')}-aaaa`).join(', ') +
        ', … (2 more); give more of the id',
    );
    expect(() => store.resolveId('20260101-00000')).toThrow(/^20260101-00000 matches 10 conversations: 20260101-000009-aaaa, .*, 20260101-000000-aaaa; give more of the id$/);
  });

  it('only .jsonl files with id-like names count', () => {
    put('real');
    mkdirSync(join(data, 'conversations'), { recursive: true });
    writeFileSync(join(data, 'conversations', 'realistic.txt'), '');
    writeFileSync(join(data, 'conversations', '.real2.jsonl'), '');
    expect(store.resolveId('rea')).toBe('real');
  });

  it('no directory yet: nothing matches', () => {
    expect(() => store.resolveId('2026')).toThrow('no conversation with id 2026');
  });
});

describe('latest and list', () => {
  it('latest: the most recently written; on a tie, the later id', () => {
    put('a1');
    put('b1');
    const t = new Date('2026-03-03T00:00:00Z');
    utimesSync(fileOf('a1'), t, t);
    utimesSync(fileOf('b1'), t, t);
    expect(store.latest()).toBe('b1');
    utimesSync(fileOf('a1'), t, new Date(t.getTime() + 1000));
    expect(store.latest()).toBe('a1');
  });

  it('list TEXT finds by prompt, model or system prompt, ignoring case; ties in time sort by id, newest first', () => {
    put('c1', { type: 'user', ts: '2026-01-01T00:00:01.000Z', content: 'Tell me about Rust' });
    put('c2', { type: 'user', ts: '2026-01-01T00:00:01.000Z', content: 'something else' });
    expect(store.list().map((c) => c.cid)).toEqual(['c2', 'c1']);
    expect(store.list('rUST').map((c) => c.cid)).toEqual(['c1']);
    expect(store.list('echo').map((c) => c.cid)).toEqual(['c2', 'c1']);
    expect(store.list('nothing like it')).toEqual([]);
  });

  it('a damaged file is named once and listed as far as it reads; an empty one is skipped; a directory in a file\'s place is named and skipped', () => {
    put('good', { type: 'user', ts: '2026-01-01T00:00:01.000Z', content: 'hi' });
    put('torn', { type: 'user', ts: '2026-01-01T00:00:01.000Z', content: 'hi' });
    writeFileSync(fileOf('torn'), readFileSync(fileOf('torn'), 'utf8') + '{"type":"us\n');
    writeFileSync(fileOf('empty'), '');
    mkdirSync(fileOf('dir'));
    expect(store.list().map((c) => c.cid).sort()).toEqual(['good', 'torn']);
    store.list();
    expect(warnings).toHaveLength(3);
    expect(warnings).toContain('warning: conversation torn: line 3 is not a whole record; the rest is used');
    expect(warnings).toContain('warning: conversation empty: the file is empty; skipped');
    expect(warnings.find((w) => w.startsWith('warning: conversation dir:'))).toMatch(/; skipped$/);
  });
});

describe('remove, removeAll and blobs', () => {
  it('removes conversations and the blobs only they used; a blob another one uses stays', () => {
    const a = store.create({ model: 'm', api: 'chat' });
    const b = store.create({ model: 'm', api: 'chat' });
    store.appendUser(a, 'x', { attachments: [image('shared'), image('only-a'), { kind: 'text', path: 't', text: 't' }] });
    store.appendUser(b, 'y', { attachments: [image('shared')] });
    expect(readdirSync(join(data, 'blobs'))).toHaveLength(2);
    expect(store.remove(a)).toBe(1);
    expect(readdirSync(join(data, 'blobs'))).toHaveLength(1);
    expect(store.hydrate(store.load(b).turns[0]!.attachments!, b)).toEqual([image('shared')]);
    expect(store.remove(b)).toBe(1);
    expect(readdirSync(join(data, 'blobs'))).toHaveLength(0);
  });

  it('an unreadable conversation keeps every blob: nothing is collected', () => {
    const a = store.create({ model: 'm', api: 'chat' });
    store.appendUser(a, 'x', { attachments: [image('only-a')] });
    mkdirSync(join(data, 'conversations', 'broken.jsonl'));
    // A directory in a file's place is not a conversation (skipped, named); blobs of a still go.
    expect(store.remove(a)).toBe(1);
  });

  it('removeAll: keep decides per file, removed and kept are said, ids gone meanwhile are passed over', () => {
    put('r1');
    put('k1');
    const keepIno = statSync(fileOf('k1')).ino;
    const result = store.removeAll(['r1', 'k1', 'gone'], (stat) => stat.ino === keepIno);
    expect(result.removed).toEqual(['r1']);
    expect(result.kept).toEqual(['k1']);
    expect(result.blobs).toBe(0);
    expect(existsSync(fileOf('k1'))).toBe(true);
    expect(store.removeAll([])).toEqual({ removed: [], kept: [], blobs: 0 });
    expect(() => store.removeAll(['../k1'])).toThrow(UsageError);
    expect(existsSync(fileOf('k1'))).toBe(true);
  });

  it('removeAll refuses a directory in a file\'s place, leaving it', () => {
    mkdirSync(join(data, 'conversations', 'd1.jsonl'), { recursive: true });
    expect(() => store.removeAll(['d1'])).toThrow(StorageError);
    expect(existsSync(join(data, 'conversations', 'd1.jsonl'))).toBe(true);
  });
});

describe('fork', () => {
  it('a copy under a new id: the settings, forked_from, every record, then the title', () => {
    const cid = store.create({ model: 'm', api: 'messages', system: 's', temperature: 0.3 });
    const turn = store.appendUser(cid, 'q', { attachments: [image('pic')] });
    store.appendAssistant(cid, { ...answer, turn });
    const copy = store.fork(cid, (records) => `${records.length} records`);
    expect(copy).not.toBe(cid);
    const [header, ...rest] = lines(copy);
    expect(header).toEqual({ type: 'meta', v: 1, cid: copy, created: rest.at(-1)!.ts, model: 'm', api: 'messages', system: 's', temperature: 0.3, forked_from: cid });
    expect(rest.slice(0, -1)).toEqual(lines(cid).slice(1));
    expect(rest.at(-1)).toMatchObject({ type: 'title', title: '2 records' });
    expect(store.load(copy).turns.map((t) => [t.user, t.assistant?.content])).toEqual([['q', 'A']]);
    // The blob is shared: removing the original keeps it for the copy.
    expect(store.remove(cid)).toBe(0);
    expect(store.hydrate(store.load(copy).turns[0]!.attachments!, copy)).toEqual([image('pic')]);
  });
});
