// SPEC §17 "Lifecycle" in-process: titles (--title records, the automatic one, renames) as the history
// index and `history fork` read them, the answers /retry -m keeps, and the ages `--older-than` takes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { savedAnswer } from '../helpers/conversation.js';
import { ageMs, parseAge } from '../../src/cli/durations.js';

let root: string;
let store: ConversationStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-lifecycle-'));
  store = new ConversationStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const titles = () => Object.fromEntries(store.list().map((c) => [c.cid, c.title]));

describe('titles', () => {
  it('a title record names the conversation before its first prompt would; a later one renames it; found by history list TEXT', () => {
    const named = store.create({ model: 'echo', api: 'chat' });
    store.appendTitle(named, 'Release notes draft');
    store.appendUser(named, 'write the notes\nfor 2.0');
    const plain = store.create({ model: 'echo', api: 'chat' });
    store.appendUser(plain, `\n  ${'x'.repeat(70)}\nsecond line`);
    expect(titles()).toEqual({ [named]: 'Release notes draft', [plain]: `${'x'.repeat(59)}…` });
    // Warm index: only the appended bytes are folded, and the rename is seen.
    store.appendTitle(plain, 'Renamed later');
    expect(titles()[plain]).toBe('Renamed later');
    expect(store.list('renamed').map((c) => c.cid)).toEqual([plain]);
    expect(store.list('release NOTES').map((c) => c.cid)).toEqual([named]);
    // Titles are not turns: the conversation's turns and context are its prompts only.
    expect(store.list().find((c) => c.cid === plain)!.turns).toBe(1);
    expect(store.load(plain).turns.map((t) => t.user)).toEqual([`\n  ${'x'.repeat(70)}\nsecond line`]);
  });

  it('fork: a new id, every record, the title marked (fork) and forked_from in the header; the copy goes on alone', () => {
    const cid = store.create({ model: 'echo', api: 'chat', system: 'be brief' });
    const turn = store.appendUser(cid, 'original question');
    store.appendAssistant(cid, { ...savedAnswer('original answer'), turn });
    const copy = store.fork(cid, (records) => `${records.length} records (fork)`);
    expect(copy).not.toBe(cid);
    expect(titles()).toEqual({ [cid]: 'original question', [copy]: '2 records (fork)' });
    const forked = store.load(copy);
    expect(forked.meta).toMatchObject({ cid: copy, forked_from: cid, system: 'be brief', model: 'echo' });
    expect(forked.turns.map((t) => [t.user, t.assistant?.content])).toEqual([['original question', 'original answer']]);
    store.appendUser(copy, 'only in the fork');
    expect(store.load(cid).turns).toHaveLength(1);
    expect(store.load(copy).turns).toHaveLength(2);
  });
});

describe('/retry -m keeps the answer it replaces', () => {
  it('the newest answer is the turn (what -c continues), the earlier ones its alternatives; a plain retry keeps those kept before', () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    const first = store.appendUser(cid, 'question');
    store.appendAssistant(cid, { ...savedAnswer('answer A'), model: 'a', turn: first });
    const second = store.appendUser(cid, 'question', { retry: true, supersedes: first, keep: true });
    store.appendAssistant(cid, { ...savedAnswer('answer B'), model: 'b', turn: second });
    let [turn, ...rest] = store.load(cid).turns;
    expect(rest).toEqual([]);
    expect(turn!.assistant?.content).toBe('answer B');
    expect(turn!.alternatives?.map((t) => t.assistant?.content)).toEqual(['answer A']);
    const third = store.appendUser(cid, 'question', { retry: true, supersedes: second });
    store.appendAssistant(cid, { ...savedAnswer('answer C'), model: 'b', turn: third });
    [turn] = store.load(cid).turns;
    expect(turn!.assistant?.content).toBe('answer C');
    expect(turn!.alternatives?.map((t) => t.assistant?.content)).toEqual(['answer A']);
  });
});

describe('ages', () => {
  it('12h, 30d, 2w; nonsense and 0 refused with a usage line naming the option', () => {
    expect(ageMs('12h')).toBe(12 * 3_600_000);
    expect(parseAge('30d', '--older-than')).toBe(30 * 86_400_000);
    expect(parseAge(' 2w ', '--older-than')).toBe(14 * 86_400_000);
    expect(ageMs('30 days')).toBeNull();
    expect(() => parseAge('0d', '--older-than')).toThrow(/--older-than: expected an age such as 12h, 30d or 2w, got "0d"/);
    expect(() => parseAge('1y', '--older-than')).toThrow(/--older-than/);
  });
});
