// Batch lines attach only inside one root (SPEC §20); saved binary attachments live once by hash (SPEC §12).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openAttachRoot, outsideRoot } from '../../src/session/attach-root.js';
import { BlobStore } from '../../src/session/blob-store.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'gatechat-root-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('attach root', () => {
  const work = join(dir, 'work');
  const docs = join(work, 'docs');
  mkdirSync(docs, { recursive: true });
  writeFileSync(join(docs, 'a.md'), 'a');
  writeFileSync(join(dir, 'secret.txt'), 's');
  symlinkSync(join(dir, 'secret.txt'), join(docs, 'link.txt'));
  mkdirSync(join(dir, 'work-other'));

  it('the current directory by default; --attach-root relative to it; refusals for what is no directory', () => {
    expect(openAttachRoot(undefined, work)).toEqual({ real: work, label: `the current directory ${work}` });
    expect(openAttachRoot('docs', work)).toEqual({ real: docs, label: '--attach-root docs' });
    expect(() => openAttachRoot('missing', work)).toThrow('--attach-root: cannot use missing: no such directory');
    expect(() => openAttachRoot('docs/a.md', work)).toThrow('--attach-root: docs/a.md is not a directory');
    expect(() => openAttachRoot('docs/a.md/x', work)).toThrow(/^--attach-root: cannot use docs\/a\.md\/x: ENOTDIR: not a directory/);
  });

  it('refuses the first path that leads outside, links followed; a sibling sharing the prefix is outside', () => {
    const root = openAttachRoot(undefined, work);
    expect(outsideRoot(['docs/a.md', join(work, 'docs'), 'not-yet.txt', '.'], root, 'attachments', work)).toBeNull();
    expect(outsideRoot(['docs/a.md', 'docs/link.txt', '../secret.txt'], root, 'attachments', work)).toBe(
      `"attachments": docs/link.txt is outside the current directory ${work}; pass --attach-root <dir> to allow it`,
    );
    expect(outsideRoot(['../work-other/x'], root, 'a', work)).toMatch(/^"a": \.\.\/work-other\/x is outside/);
    expect(outsideRoot(['/etc/passwd'], openAttachRoot('/', work), 'a', work)).toBeNull();
  });
});

describe('BlobStore', () => {
  it('stores content once by its SHA-256, reads it back, and collects what no conversation keeps', () => {
    const store = new BlobStore(join(dir, 'data'));
    expect(store.root).toBe(join(dir, 'data', 'blobs'));
    expect(store.collect(new Set())).toBe(0);
    const png = Buffer.from('not really a png').toString('base64');
    const hash = store.put(png);
    expect(hash).toBe(createHash('sha256').update('not really a png').digest('hex'));
    expect(store.put(png)).toBe(hash);
    expect(store.get(hash)).toBe(png);
    expect(store.get('../secret')).toBeNull();
    expect(store.get('0'.repeat(64))).toBeNull();
    const other = store.put(Buffer.from('other').toString('base64'));
    writeFileSync(join(store.root, 'not-a-blob.tmp'), 'x');
    expect(store.collect(new Set([hash]))).toBe(1);
    expect(store.get(other)).toBeNull();
    expect(readdirSync(store.root).sort()).toEqual([hash, 'not-a-blob.tmp'].sort());
  });

  it('a blob already there is left as it is, and only a hash names a blob (never a path beside the store)', () => {
    const data = join(dir, 'data2');
    const store = new BlobStore(data);
    const content = Buffer.from('same bytes').toString('base64');
    const hash = store.put(content);
    const first = statSync(join(store.root, hash)).ino;
    expect(store.put(content)).toBe(hash);
    expect(statSync(join(store.root, hash)).ino).toBe(first);
    writeFileSync(join(data, 'secret'), 'key');
    expect(store.get('../secret')).toBeNull();
  });
});
