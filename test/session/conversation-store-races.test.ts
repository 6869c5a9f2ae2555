// ConversationStore while another process changes its directory (mutation: src/session/conversation-store.ts):
// a conversation removed or replaced in the middle of a listing, a blob collection or a fork, and a
// run appending while `history rm` holds the conversation's lock. The other process's step is taken
// at a known moment: from the store's warn callback (it runs synchronously, between two files), or by a
// real child process holding the lock.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { StorageError } from '../../src/storage/storage-error.js';

let root: string;
let warnings: string[];
/** What "another process" does the first time the store warns. */
let onWarn: (() => void) | null;
let store: ConversationStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-storeraces-'));
  warnings = [];
  onWarn = null;
  store = new ConversationStore(root, {
    warn: (line) => {
      warnings.push(line);
      const step = onWarn;
      onWarn = null;
      step?.();
    },
  });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const fileOf = (cid: string) => join(root, 'conversations', `${cid}.jsonl`);
/** A conversation under a chosen id; `torn`: with a torn last line, so that reading it warns. */
function put(cid: string, torn = false): void {
  mkdirSync(join(root, 'conversations'), { recursive: true });
  const meta = { type: 'meta', v: 1, cid, created: '2026-01-01T00:00:00.000Z', model: 'echo', api: 'chat' };
  const user = { type: 'user', turn: 't1', ts: '2026-01-01T00:00:01.000Z', content: `about ${cid}` };
  writeFileSync(fileOf(cid), `${JSON.stringify(meta)}\n${JSON.stringify(user)}\n${torn ? '{"type":"as\n' : ''}`);
}
const replaceByDirectory = (cid: string) => () => {
  rmSync(fileOf(cid));
  mkdirSync(fileOf(cid));
};
const png = { kind: 'image' as const, path: 'a.png', mime: 'image/png' as const, data: Buffer.from('only mine').toString('base64'), bytes: 9 };

describe('a listing', () => {
  it('a conversation removed after the directory was read is passed over without a word', () => {
    mkdirSync(join(root, 'conversations', 'a0.jsonl'), { recursive: true });
    put('b1');
    put('c2');
    onWarn = () => rmSync(fileOf('b1'));
    expect(store.list().map((c) => c.cid)).toEqual(['c2']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: conversation a0: .*: it is a directory \(EISDIR\); skipped$/);
  });

  it('a conversation that cannot even be looked at any more is named and skipped', () => {
    mkdirSync(join(root, 'conversations', 'a0.jsonl'), { recursive: true });
    put('b1');
    onWarn = () => {
      renameSync(join(root, 'conversations'), join(root, 'moved'));
      writeFileSync(join(root, 'conversations'), 'not a directory');
    };
    expect(store.list()).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: conversation a0: /),
      `warning: conversation b1: ${fileOf('b1')}: a part of its path is not a directory (ENOTDIR); skipped`,
    ]);
  });

  it('a conversation replaced by a directory while it is being read is named and skipped; the listing goes on', () => {
    put('a0', true);
    put('b1');
    put('c2');
    onWarn = replaceByDirectory('b1');
    expect(store.list().map((c) => c.cid)).toEqual(['c2', 'a0']);
    expect(warnings).toEqual([
      'warning: conversation a0: line 3 is not a whole record; the rest is used',
      `warning: conversation b1: ${fileOf('b1')}: it is a directory (EISDIR); skipped`,
    ]);
  });
});

describe('collecting blobs after a removal', () => {
  it('a conversation that cannot be read any more keeps every blob (its own cannot be told apart), and is named', () => {
    const gone = store.create({ model: 'echo', api: 'chat' });
    store.appendUser(gone, 'see', { attachments: [png] });
    put('k1', true);
    put('k2');
    onWarn = replaceByDirectory('k2');
    expect(store.remove(gone)).toBe(0);
    expect(readdirSync(join(root, 'blobs'))).toHaveLength(1);
    expect(warnings).toEqual([
      'warning: conversation k1: line 3 is not a whole record; the rest is used',
      `warning: cannot read conversation k2: ${fileOf('k2')}: it is a directory (EISDIR); skipped`,
    ]);
  });
});

describe('a fork', () => {
  it('whose conversations directory is replaced meanwhile: a storage error naming it, with the hint', () => {
    put('a0', true);
    onWarn = () => {
      renameSync(join(root, 'conversations'), join(root, 'moved'));
      writeFileSync(join(root, 'conversations'), 'not a directory');
    };
    let thrown: unknown;
    try {
      store.fork('a0', () => 'T');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toMatch(/^cannot save the conversation in .*conversations: /);
    expect((thrown as StorageError).hint).toBe('fix it, set GATECHAT_DATA_DIR, or use --no-save');
  });
});

describe.runIf(process.platform !== 'win32')('appending while history rm holds the conversation', () => {
  it('the append waits for the lock, finds the conversation gone, says so and creates nothing', async () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    const lock = `${fileOf(cid)}.lock`;
    // `history rm` in another process: holds the lock (written below, in its name), removes the file, then lets go.
    const script = 'while [ ! -s "$2" ]; do sleep 0.02; done; sleep 0.2; rm -f "$1"; rm -f "$2"';
    const rm = spawn('sh', ['-c', script, 'sh', fileOf(cid), lock], { stdio: 'ignore' });
    const exited = new Promise((resolve) => rm.once('exit', resolve));
    appendFileSync(lock, `${JSON.stringify({ pid: rm.pid, host: hostname(), started: null, nonce: randomBytes(8).toString('hex') })}\n`);
    let thrown: unknown;
    try {
      store.appendUser(cid, 'q');
    } catch (error) {
      thrown = error;
    }
    await exited;
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).message).toBe(`conversation ${cid} was removed (gatechat history rm) while this run was using it; nothing more of it is saved`);
    expect((thrown as StorageError).hint).toBe('start a new conversation');
    expect(existsSync(fileOf(cid))).toBe(false);
    expect(existsSync(lock)).toBe(false);
  });
});
