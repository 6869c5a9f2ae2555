// ConversationStore when the disk does not cooperate: a data directory that is a file, entries in a
// conversation's place that are not files (mutation: src/session/conversation-store.ts).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { StorageError } from '../../src/storage/storage-error.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-storefaults-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const settings = { model: 'echo', api: 'chat' as const, system: null };

describe('a data directory that cannot hold conversations', () => {
  it('create: one storage error naming the directory', () => {
    const file = join(root, 'data');
    writeFileSync(file, 'not a directory');
    const store = new ConversationStore(file);
    let thrown: unknown;
    try {
      store.create(settings);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toMatch(/^cannot save the conversation in .*data[/\\]conversations/);
  });

  it('a listing of a conversations path that is a file: one storage error with the hint', () => {
    mkdirSync(join(root, 'data'));
    writeFileSync(join(root, 'data', 'conversations'), 'not a directory');
    const store = new ConversationStore(join(root, 'data'));
    let thrown: unknown;
    try {
      store.list();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toMatch(/^cannot read saved conversations in /);
    expect((thrown as StorageError).hint).toBe('fix it or set GATECHAT_DATA_DIR');
  });

  it('no conversations directory yet: an empty listing', () => {
    expect(new ConversationStore(join(root, 'none')).list()).toEqual([]);
  });
});

describe('entries in a conversation\'s place that are not files', () => {
  it('a directory and a link are each named once and skipped; the real conversation is listed', () => {
    const warnings: string[] = [];
    const store = new ConversationStore(root, { warn: (line) => warnings.push(line) });
    const cid = store.create(settings);
    mkdirSync(join(root, 'conversations', 'adir.jsonl'));
    symlinkSync(join(root, 'conversations', `${cid}.jsonl`), join(root, 'conversations', 'alink.jsonl'));
    expect(store.list().map((c) => c.cid)).toEqual([cid]);
    store.list();
    expect(warnings).toHaveLength(2);
    expect(warnings.find((w) => w.includes('adir'))).toMatch(/^warning: conversation adir: .*adir\.jsonl: it is a directory \(EISDIR\); skipped$/);
    expect(warnings.find((w) => w.includes('alink'))).toMatch(/^warning: conversation alink: .*alink\.jsonl: it is a symbolic link.*\(ELOOP\); skipped$/);
  });
});
