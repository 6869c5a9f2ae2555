// ConversationStore when the disk does not cooperate: a data directory that is a file, entries in a
// conversation's place that are not files (mutation: src/session/conversation-store.ts).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { UsageError } from '../../src/exit-codes.js';
import { thrownBy } from '../helpers/thrown.js';

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

const SAVE_HINT = 'fix it, set GATECHAT_DATA_DIR, or use --no-save';
const png = { kind: 'image' as const, path: 'a.png', mime: 'image/png' as const, data: Buffer.from('png').toString('base64'), bytes: 3 };

describe('a conversations path that is a file, once conversations exist', () => {
  it('reading one is a storage error naming the file, not "no conversation with id"', () => {
    writeFileSync(join(root, 'conversations'), 'not a directory');
    const store = new ConversationStore(root);
    const thrown = thrownBy(() => store.load('abc'));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toBe(`cannot read conversation abc: ${join(root, 'conversations', 'abc.jsonl')}: a part of its path is not a directory (ENOTDIR)`);
    expect((thrown as StorageError).code).toBe('ENOTDIR');
  });

  it('removeAll: a storage error naming the conversation; the lock it could not take is no bug', () => {
    writeFileSync(join(root, 'conversations'), 'not a directory');
    const store = new ConversationStore(root);
    const thrown = thrownBy(() => store.removeAll(['abc']));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toBe(`cannot remove conversation abc: ${join(root, 'conversations', 'abc.jsonl')}: a part of its path is not a directory (ENOTDIR)`);
  });
});

describe('ids that are not conversation ids', () => {
  it('load and removeAll say which id and where to find real ones', () => {
    const store = new ConversationStore(root);
    for (const run of [() => store.load('../x'), () => store.removeAll(['../x']), () => store.appendTitle('../x', 't')]) {
      const thrown = thrownBy(run);
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as UsageError).message).toBe('not a conversation id: "../x" (see: gatechat history list)');
    }
  });
});

describe('attachments and blobs on a disk that does not cooperate', () => {
  it('an attachment that cannot be stored: a storage error naming the blob directory, and the prompt is not saved', () => {
    const store = new ConversationStore(root);
    const cid = store.create(settings);
    writeFileSync(join(root, 'blobs'), 'not a directory');
    const thrown = thrownBy(() => store.appendUser(cid, 'see', { attachments: [png] }));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toMatch(new RegExp(`^cannot save the attachment in ${escape(join(root, 'blobs'))}: `));
    expect((thrown as StorageError).hint).toBe(SAVE_HINT);
    expect(store.records(cid).map((r) => r.type)).toEqual(['meta']);
  });

  it('an unused blob that cannot be removed: a storage error naming the blob directory, after the conversation went', () => {
    const store = new ConversationStore(root);
    const cid = store.create(settings);
    mkdirSync(join(root, 'blobs', 'f'.repeat(64)), { recursive: true });
    const thrown = thrownBy(() => store.remove(cid));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toBe(`cannot remove unused attachments from ${join(root, 'blobs')}: it is a directory (ERR_FS_EISDIR)`);
    expect(existsSync(join(root, 'conversations', `${cid}.jsonl`))).toBe(false);
  });

  it('a removeAll that removes nothing leaves the blob store alone (a blob stored for a prompt not yet appended stays)', () => {
    const store = new ConversationStore(root);
    const keptCid = store.create(settings);
    const stored = join(root, 'blobs', 'a'.repeat(64));
    mkdirSync(join(root, 'blobs'), { recursive: true });
    writeFileSync(stored, 'another run is about to name me');
    expect(store.removeAll(['20260101-000000-dead', keptCid], () => true)).toEqual({ removed: [], kept: [keptCid], blobs: 0 });
    expect(existsSync(stored)).toBe(true);
    expect(existsSync(join(root, 'conversations', `${keptCid}.jsonl.lock`))).toBe(false);
  });
});

describe('warnings for damaged files', () => {
  it('a file with only damage is skipped, its two problems joined in one warning', () => {
    const warnings: string[] = [];
    const store = new ConversationStore(root, { warn: (line) => warnings.push(line) });
    mkdirSync(join(root, 'conversations'));
    writeFileSync(join(root, 'conversations', 'junk.jsonl'), 'not json\n{"type":"user","ts":"","content":5}\n');
    expect(store.list()).toEqual([]);
    expect(warnings).toEqual(['warning: conversation junk: line 1 is not a whole record; line 2: "content" is not a string (skipped); skipped']);
  });

  it('a torn line and a damaged record are named in one warning, by load and by a listing; a sound file warns of nothing', () => {
    for (const use of ['load', 'list'] as const) {
      const warnings: string[] = [];
      const store = new ConversationStore(join(root, use), { warn: (line) => warnings.push(line) });
      const sound = store.create(settings);
      store.appendUser(sound, 'q');
      store.load(sound);
      const cid = store.create(settings);
      store.appendUser(cid, 'q');
      appendFileSync(join(root, use, 'conversations', `${cid}.jsonl`), '{"type":"us\n{"type":"user","ts":"","content":5}\n');
      if (use === 'load') store.load(cid);
      else store.list();
      expect(warnings, use).toEqual([`warning: conversation ${cid}: line 3 is not a whole record; line 4: "content" is not a string (skipped); the rest is used`]);
    }
  });

  it.runIf(process.platform !== 'win32')('a FIFO in a conversation\'s place is named as not a regular file and skipped', () => {
    const warnings: string[] = [];
    const store = new ConversationStore(root, { warn: (line) => warnings.push(line) });
    const cid = store.create(settings);
    execFileSync('mkfifo', [join(root, 'conversations', 'pipe.jsonl')]);
    expect(store.list().map((c) => c.cid)).toEqual([cid]);
    expect(warnings).toEqual([`warning: conversation pipe: ${join(root, 'conversations', 'pipe.jsonl')}: it is not a regular file (ENOTREG); skipped`]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe.runIf(process.platform !== 'win32')('a link in a conversation\'s place', () => {
  it('an append is not written through it: one storage error naming the file, with the hint to remove the link', () => {
    const store = new ConversationStore(root);
    const cid = store.create(settings);
    const elsewhere = join(root, 'elsewhere.jsonl');
    writeFileSync(elsewhere, '');
    rmSync(join(root, 'conversations', `${cid}.jsonl`));
    symlinkSync(elsewhere, join(root, 'conversations', `${cid}.jsonl`));
    const thrown = thrownBy(() => store.appendUser(cid, 'q'));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toBe(
      `cannot save the conversation to ${join(root, 'conversations', `${cid}.jsonl`)}: it is a symbolic link, which gatechat does not follow for its own files (ELOOP)`,
    );
    expect((thrown as StorageError).hint).toBe('remove the link if you did not put it there');
    expect(readFileSync(elsewhere, 'utf8')).toBe('');
  });
});

describe('files in the conversations directory that are not conversations', () => {
  it('a .jsonl file whose name is no id (a copy made by hand) is neither listed nor matched', () => {
    const warnings: string[] = [];
    const store = new ConversationStore(root, { warn: (line) => warnings.push(line) });
    const cid = store.create(settings);
    writeFileSync(join(root, 'conversations', `${cid} copy.jsonl`), readFileSync(join(root, 'conversations', `${cid}.jsonl`)));
    expect(store.list().map((c) => c.cid)).toEqual([cid]);
    expect(store.resolveId(cid.slice(0, 10))).toBe(cid);
    expect(warnings).toEqual([]);
  });
});
