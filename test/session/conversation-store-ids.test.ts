// ConversationStore ids that collide (mutation: src/session/conversation-store.ts, create() and fork()):
// two runs starting in the same second draw the same 4 hex digits one time in 65 536. The random source
// is pinned here (node:crypto's randomBytes, nothing of our own) so that the collision happens on demand.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { thrownBy } from '../helpers/thrown.js';

/** The next draws (`queue`), then `stuck` for every draw after them; both empty: really random. */
const pinned = vi.hoisted(() => ({ queue: [] as number[][], stuck: null as number[] | null, draws: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const randomBytes = ((size: number) => {
    // Only the 2 bytes of an id are pinned; turn ids, lock nonces and temp names stay random.
    const next = size === 2 ? (pinned.queue.shift() ?? pinned.stuck) : null;
    if (next === null) return actual.randomBytes(size);
    pinned.draws++;
    return Buffer.from(next);
  }) as typeof actual.randomBytes;
  return { ...actual, default: { ...actual, randomBytes }, randomBytes };
});

const { ConversationStore } = await import('../../src/session/conversation-store.js');
const { StorageError } = await import('../../src/storage/storage-error.js');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-storeids-'));
  pinned.queue = [];
  pinned.stuck = null;
  pinned.draws = 0;
  // One second for the whole test: the ids' time part stays the same.
  vi.useFakeTimers({ now: new Date('2026-05-05T10:00:00.000Z'), toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  pinned.stuck = null;
  rmSync(root, { recursive: true, force: true });
});

const settings = { model: 'echo', api: 'chat' as const };
const conversations = () => readdirSync(join(root, 'conversations')).filter((name) => name.endsWith('.jsonl')).sort();

describe('an id drawn twice', () => {
  it('create: the second conversation draws again and gets its own file; the first is untouched', () => {
    const store = new ConversationStore(root);
    pinned.queue = [[0xab, 0xcd], [0xab, 0xcd], [0x12, 0x34]];
    const first = store.create(settings);
    const header = readFileSync(join(root, 'conversations', `${first}.jsonl`), 'utf8');
    const second = store.create(settings);
    expect([first, second]).toEqual(['20260505-100000-abcd', '20260505-100000-1234']);
    expect(pinned.draws).toBe(3);
    expect(conversations()).toEqual([`${second}.jsonl`, `${first}.jsonl`]);
    expect(readFileSync(join(root, 'conversations', `${first}.jsonl`), 'utf8')).toBe(header);
    expect(store.load(second).meta.cid).toBe(second);
  });

  it('create: an id that stays taken is given up after 21 draws, with one storage error naming the file', () => {
    const store = new ConversationStore(root);
    pinned.stuck = [0xab, 0xcd];
    const first = store.create(settings);
    pinned.draws = 0;
    const thrown = thrownBy(() => store.create(settings));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as InstanceType<typeof StorageError>).message).toBe(
      `cannot save the conversation to ${join(root, 'conversations', `${first}.jsonl`)}: it already exists (EEXIST)`,
    );
    expect((thrown as InstanceType<typeof StorageError>).hint).toBe('fix it, set GATECHAT_DATA_DIR, or use --no-save');
    expect(pinned.draws).toBe(21);
    expect(conversations()).toEqual([`${first}.jsonl`]);
  });

  it('fork: the copy draws again past a taken id', () => {
    const store = new ConversationStore(root);
    pinned.queue = [[0x00, 0x01], [0x00, 0x01], [0x00, 0x02]];
    const original = store.create(settings);
    store.appendUser(original, 'q');
    const copy = store.fork(original, () => 'T');
    expect(copy).toBe('20260505-100000-0002');
    expect(store.load(copy).turns.map((t) => t.user)).toEqual(['q']);
    expect(store.load(original).meta).not.toHaveProperty('forked_from');
  });

  it('fork: an id that stays taken is given up after 21 draws with one storage error; the original is untouched', () => {
    const store = new ConversationStore(root);
    pinned.stuck = [0x00, 0x01];
    const original = store.create(settings);
    store.appendUser(original, 'q');
    pinned.draws = 0;
    const thrown = thrownBy(() => store.fork(original, () => 'T'));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as InstanceType<typeof StorageError>).message).toBe(
      `cannot save the conversation to ${join(root, 'conversations', `${original}.jsonl`)}: it already exists (EEXIST)`,
    );
    expect((thrown as InstanceType<typeof StorageError>).hint).toBe('fix it, set GATECHAT_DATA_DIR, or use --no-save');
    expect(pinned.draws).toBe(21);
    expect(conversations()).toEqual([`${original}.jsonl`]);
    expect(store.load(original).turns.map((t) => t.user)).toEqual(['q']);
  });
});
