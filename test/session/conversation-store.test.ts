import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore, newCid, type AssistantInput } from '../../src/session/conversation-store.js';
import { dataDir } from '../../src/session/paths.js';
import { UsageError } from '../../src/exit-codes.js';

const posix = process.platform !== 'win32';
let root: string;
let store: ConversationStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-data-'));
  store = new ConversationStore(join(root, 'data'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function answer(content: string, status: AssistantInput['status'] = 'complete'): AssistantInput {
  return {
    content,
    reasoning: null,
    tool_calls: [],
    status,
    finish_reason: status === 'complete' ? 'stop' : status === 'cancelled' ? 'cancelled' : 'error',
    raw_finish_reason: status === 'complete' ? 'stop' : null,
    usage: { input_tokens: 3, output_tokens: 5 },
    model: 'echo',
    api: 'chat',
    params: { temperature: 0.2, stream: true },
    timings: { first_token_ms: 12, total_ms: 40 },
    ...(status === 'error' ? { error: { message: 'gateway error (500)', exit_code: 6 } } : {}),
  };
}

const fileOf = (cid: string) => join(root, 'data', 'conversations', `${cid}.jsonl`);

describe('ConversationStore', () => {
  it('load() gives the settings of the last prompt that carried them, else the header; bad fields are dropped', () => {
    const first = { model: 'm1', api: 'chat' as const, system: null, temperature: 0.2, max_tokens: null, options: { seed: 1 }, tools: null };
    const cid = store.create(first);
    store.appendUser(cid, 'q1');
    store.appendAssistant(cid, answer('a1'));
    expect(store.load(cid).settings).toEqual(first);
    const second = { ...first, model: 'm2', api: 'messages' as const, system: 'short' };
    store.appendUser(cid, 'q2', { settings: second });
    expect(store.load(cid).settings).toEqual(second);
    // edited by hand: a temperature that is not a number and an unknown api are not used
    appendFileSync(fileOf(cid), `${JSON.stringify({ type: 'user', ts: '', content: 'q3', settings: { model: 'm3', api: 'soap', temperature: 'hot', max_tokens: 5 } })}\n`);
    expect(store.load(cid).settings).toEqual({ model: 'm3', api: 'messages', max_tokens: 5 });
  });

  it('round-trips a conversation, one JSON record per line', () => {
    const cid = store.create({ model: 'echo', api: 'messages', system: 'be brief' });
    expect(cid).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
    store.appendUser(cid, 'first\nprompt');
    store.appendAssistant(cid, answer('first answer'));
    store.appendUser(cid, 'second');
    store.appendAssistant(cid, answer('partial', 'cancelled'));

    const { meta, turns } = store.load(cid);
    expect(meta).toMatchObject({ type: 'meta', v: 1, cid, model: 'echo', api: 'messages', system: 'be brief' });
    expect(turns.map((t) => [t.user, t.assistant?.content, t.assistant?.status])).toEqual([
      ['first\nprompt', 'first answer', 'complete'],
      ['second', 'partial', 'cancelled'],
    ]);
    expect(turns[0].assistant).toMatchObject({ type: 'assistant', usage: { input_tokens: 3, output_tokens: 5 }, timings: { total_ms: 40 } });
    expect(typeof turns[0].assistant?.ts).toBe('string');

    const lines = readFileSync(fileOf(cid), 'utf8').split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe('');
    expect(lines.slice(0, 5).map((l) => JSON.parse(l).type)).toEqual(['meta', 'user', 'assistant', 'user', 'assistant']);
  });

  it.runIf(posix)('creates files 0600 and directories 0700', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    store.appendUser(cid, 'hi');
    expect(statSync(fileOf(cid)).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'data', 'conversations')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'data')).mode & 0o777).toBe(0o700);
  });

  it('keeps every turn before a torn last line, and later appends start on a fresh line', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    store.appendUser(cid, 'one');
    store.appendAssistant(cid, answer('uno'));
    store.appendUser(cid, 'two');
    appendFileSync(fileOf(cid), '{"type":"assistant","ts":"2026-01-01T00:00:00Z","content":"do'); // crash mid-write
    const loaded = store.load(cid);
    expect(loaded.turns).toHaveLength(2);
    expect(loaded.turns[0].assistant?.content).toBe('uno');
    expect(loaded.turns[1]).toEqual({ id: expect.any(String), user: 'two', assistant: null });

    store.appendUser(cid, 'three');
    store.appendAssistant(cid, answer('tres'));
    const after = store.load(cid).turns;
    expect(after.map((t) => [t.user, t.assistant?.content ?? null])).toEqual([
      ['one', 'uno'],
      ['two', null],
      ['three', 'tres'],
    ]);
  });

  it('lists newest first with turns and a short title, and finds the latest', () => {
    expect(store.list()).toEqual([]);
    expect(store.latest()).toBeNull();
    const a = store.create({ model: 'm-a', api: 'chat' });
    store.appendUser(a, `\n  ${'x'.repeat(80)}\nsecond line`);
    const b = store.create({ model: 'm-b', api: 'messages' });
    store.appendUser(b, 'hello');
    store.appendAssistant(b, { ...answer('hi'), ts: '2999-01-01T00:00:00.000Z' });
    // a written to last on disk: it is what -c continues.
    utimesSync(fileOf(a), new Date(), new Date(Date.now() + 10_000));
    expect(store.latest()).toBe(a);

    const list = store.list();
    expect(list.map((c) => c.cid)).toEqual([b, a]);
    expect(list[0]).toMatchObject({ cid: b, model: 'm-b', api: 'messages', turns: 1, title: 'hello', updated: '2999-01-01T00:00:00.000Z' });
    expect(list[1].title).toBe(`${'x'.repeat(59)}…`);
    expect(list[1].title.length).toBe(60);
  });

  it('removes a conversation', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    store.remove(cid);
    expect(existsSync(fileOf(cid))).toBe(false);
    expect(() => store.remove(cid)).toThrow(UsageError);
  });

  it('refuses unknown and malicious ids without touching the file system outside its directory', () => {
    expect(() => store.load('20260101-000000-ffff')).toThrow('no conversation with id 20260101-000000-ffff: see gatechat history list');
    for (const bad of ['../../etc/passwd', '..', '.', 'a/b', 'a\\b', '', 'x.jsonl', '/abs', 'a\u0000b', '\u001b[31mred']) {
      let caught: unknown;
      try {
        store.load(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught, bad).toBeInstanceOf(UsageError);
      expect((caught as UsageError).exitCode).toBe(2);
      expect((caught as UsageError).message).not.toContain('\u001b');
      expect(() => store.appendUser(bad, 'x')).toThrow(UsageError);
      expect(() => store.remove(bad)).toThrow(UsageError);
    }
    expect(existsSync(join(root, 'data', 'conversations'))).toBe(false);
  });

  it('makes distinct sortable ids', () => {
    const ids = new Set(Array.from({ length: 20 }, () => store.create({ model: 'e', api: 'chat' })));
    expect(ids.size).toBe(20);
    expect(readdirSync(join(root, 'data', 'conversations'))).toHaveLength(20);
    expect(newCid(new Date('2026-11-22T15:30:12.999Z'))).toMatch(/^20261122-153012-[0-9a-f]{4}$/);
  });
});

describe.runIf(posix)('a blob replaced by a link', () => {
  it('is not read through: the attachment counts as missing and the link target is never sent', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    const data = Buffer.from('not really a png').toString('base64');
    store.appendUser(cid, 'see this', { attachments: [{ kind: 'image', path: 'a.png', mime: 'image/png', data, bytes: 16 }] });
    const [turn] = store.load(cid).turns;
    const blob = join(root, 'data', 'blobs', (turn!.attachments![0] as { sha256: string }).sha256);
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'private key');
    rmSync(blob);
    symlinkSync(secret, blob);
    expect(() => store.hydrate(turn!.attachments!, cid)).toThrow(/the attached a\.png is missing/);
  });
});

describe('records of several runs appended to one conversation at once', () => {
  const summary = (cid: string) => store.load(cid).turns.map((t) => [t.user, t.assistant?.content ?? null, t.assistant?.status ?? null]);

  it('pairs each answer with its own prompt by turn id, in prompt order', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    const one = store.appendUser(cid, 'one');
    const two = store.appendUser(cid, 'two');
    store.appendAssistant(cid, { ...answer('answer two'), turn: two });
    const three = store.appendUser(cid, 'three');
    store.appendAssistant(cid, { ...answer('answer one'), turn: one });
    store.appendAssistant(cid, { ...answer('answer three'), turn: three });
    expect(summary(cid)).toEqual([
      ['one', 'answer one', 'complete'],
      ['two', 'answer two', 'complete'],
      ['three', 'answer three', 'complete'],
    ]);
  });

  it('answer parts interleaved with another run\'s join their own answer; a run that died keeps its parts as a partial', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    const a = store.appendUser(cid, 'long a');
    const b = store.appendUser(cid, 'long b');
    store.appendAnswerPart(cid, 'a1 ', a);
    store.appendAnswerPart(cid, 'b1 ', b);
    store.appendAnswerPart(cid, 'a2 ', a);
    store.appendAssistant(cid, { ...answer('a3'), turn: a });
    store.appendAnswerPart(cid, 'b2', b); // b was killed here
    expect(summary(cid)).toEqual([
      ['long a', 'a1 a2 a3', 'complete'],
      ['long b', 'b1 b2', 'interrupted'],
    ]);
  });

  it('/retry supersedes the turn it names, even when another run\'s prompt came in between', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    const first = store.appendUser(cid, 'ask again');
    store.appendAssistant(cid, { ...answer('bad answer'), turn: first });
    const other = store.appendUser(cid, 'from another terminal');
    store.appendAssistant(cid, { ...answer('its answer'), turn: other });
    const again = store.appendUser(cid, 'ask again', { retry: true, supersedes: first });
    store.appendAssistant(cid, { ...answer('good answer'), turn: again });
    expect(summary(cid)).toEqual([
      ['from another terminal', 'its answer', 'complete'],
      ['ask again', 'good answer', 'complete'],
    ]);
  });

  it('a whole record glued to the fragment a killed writer left is kept, and said', () => {
    const warnings: string[] = [];
    const watched = new ConversationStore(join(root, 'data'), { warn: (line) => warnings.push(line) });
    const cid = watched.create({ model: 'echo', api: 'chat' });
    const one = watched.appendUser(cid, 'one');
    // A writer killed mid-record, then another run's record appended right after the fragment.
    appendFileSync(fileOf(cid), '{"type":"assistant","turn":"zzzz","content":"tor');
    appendFileSync(fileOf(cid), `${JSON.stringify({ type: 'assistant', turn: one, ts: '', ...answer('uno') })}\n`);
    expect(watched.load(cid).turns.map((t) => t.assistant?.content)).toEqual(['uno']);
    expect(warnings).toEqual([`warning: conversation ${cid}: line 3 begins with a torn record; the rest is used`]);
  });
});

describe('dataDir', () => {
  it('honours GATECHAT_DATA_DIR, then the platform data dir', () => {
    expect(dataDir({ GATECHAT_DATA_DIR: '/d' })).toBe('/d');
    expect(dataDir({ XDG_DATA_HOME: '/x' }, 'linux')).toBe(join('/x', 'gatechat'));
    expect(dataDir({}, 'linux')).toMatch(/[/\\]\.local[/\\]share[/\\]gatechat$/);
    expect(dataDir({}, 'darwin')).toMatch(/Library[/\\]Application Support[/\\]gatechat$/);
    expect(dataDir({ LOCALAPPDATA: 'C:\\L' }, 'win32')).toBe(join('C:\\L', 'gatechat', 'Data'));
  });
});
