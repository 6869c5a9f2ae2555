// listTextFileCandidates (SPEC §12, §20): what a directory given to -a offers, in order, and which
// links it follows, leaves alone quietly, or reports.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listTextFileCandidates } from '../../src/session/attachment-walk.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => (dir = realpathSync(mkdtempSync(join(tmpdir(), 'gatechat-walk-'))));
const put = (name: string, content = 'x\n') => {
  mkdirSync(join(dir, name, '..'), { recursive: true });
  writeFileSync(join(dir, name), content);
};
const paths = (root: string) => listTextFileCandidates(root).files.map((f) => f.path);
/** The listing as path and size only (the walk's file entries carry an internal tag besides). */
const listing = (root: string) => {
  const { files, skippedLinks } = listTextFileCandidates(root);
  return { files: files.map(({ path, size }) => ({ path, size })), skippedLinks };
};

describe('order and sizes', () => {
  it('sorted by name at each level, depth first, each with its size', () => {
    fresh();
    // Created out of order, so the directory's own order is not the sorted one.
    for (const name of ['m.txt', 'b.txt', 'z.txt', 'a/y.txt', 'a/c.txt', 'k.txt', 'c.txt', 'q.txt', 'e.txt']) put(name, name);
    const root = join(dir);
    expect(listing(root)).toEqual({
      files: ['a/c.txt', 'a/y.txt', 'b.txt', 'c.txt', 'e.txt', 'k.txt', 'm.txt', 'q.txt', 'z.txt'].map((name) => ({ path: join(root, name), size: name.length })),
      skippedLinks: [],
    });
  });

  it('in UTF-16 order, as JavaScript compares names (not the byte order the file system lists them in)', () => {
    fresh();
    put('\uFF5A.txt');
    put('\u{1F600}.txt');
    put('a.txt');
    expect(paths(dir)).toEqual([join(dir, 'a.txt'), join(dir, '\u{1F600}.txt'), join(dir, '\uFF5A.txt')]);
  });

  it('leaves out what is no regular file (a FIFO)', () => {
    fresh();
    put('a.txt');
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    expect(listing(dir)).toEqual({ files: [{ path: join(dir, 'a.txt'), size: 2 }], skippedLinks: [] });
  });
});

describe('.gitignore', () => {
  it('the repository top is the nearest directory above holding .git, several levels up; directories between may have no rules', () => {
    fresh();
    put('.git/HEAD');
    put('.gitignore', 'secret.txt\n');
    put('a/b/secret.txt');
    put('a/b/open.txt');
    expect(paths(join(dir, 'a', 'b'))).toEqual([join(dir, 'a', 'b', 'open.txt')]);
  });

  it('outside a repository no rule above the root applies', () => {
    fresh();
    put('.gitignore', 'secret.txt\n');
    put('a/secret.txt');
    expect(paths(join(dir, 'a'))).toEqual([join(dir, 'a', 'secret.txt')]);
  });

  it('a deeper .gitignore can bring back what a shallower one ignored', () => {
    fresh();
    put('.gitignore', '*.md\n');
    put('sub/.gitignore', '!keep.md\n');
    put('sub/keep.md');
    put('sub/drop.md');
    put('top.md');
    expect(paths(dir)).toEqual([join(dir, 'sub', 'keep.md')]);
  });

  it('an ignored directory is not entered: a .gitignore inside cannot bring its files back (as in git)', () => {
    fresh();
    put('.gitignore', 'build/\n');
    put('build/.gitignore', '!keep.txt\n');
    put('build/keep.txt');
    put('src.txt');
    expect(paths(dir)).toEqual([join(dir, 'src.txt')]);
  });

  it('a directory-only pattern skips the directory and not a file of that name', () => {
    fresh();
    put('.gitignore', 'build/\nnotes/\n');
    put('build/out.txt');
    put('notes');
    put('src/a.txt');
    expect(paths(dir)).toEqual([join(dir, 'notes'), join(dir, 'src', 'a.txt')]);
  });
});

describe('links (SPEC §20)', () => {
  it('follows a link to a file the walk attaches, under the link name; reports links that leave or lead to what is skipped', () => {
    fresh();
    put('root/a.txt', 'aaa');
    put('root/.env', 'KEY=1');
    put('root/sub/deep.txt');
    put('outside.txt', 'secret');
    put('root-other/x.txt');
    mkdirSync(join(dir, 'elsewhere'));
    const root = join(dir, 'root');
    symlinkSync(join(root, 'a.txt'), join(root, 'link-a.txt'));
    symlinkSync(join(dir, 'outside.txt'), join(root, 'sub', 'out.txt'));
    symlinkSync(join(root, '.env'), join(root, 'config.txt'));
    symlinkSync(join(root, 'sub'), join(root, 'sub-link'));
    symlinkSync(root, join(root, 'sub', 'loop'));
    symlinkSync(join(dir, 'elsewhere'), join(root, 'far'));
    symlinkSync(join(dir, 'root-other'), join(root, 'sibling'));
    symlinkSync(join(dir, 'gone.txt'), join(root, 'dangling.txt'));
    expect(listing(root)).toEqual({
      files: [
        { path: join(root, 'a.txt'), size: 3 },
        { path: join(root, 'link-a.txt'), size: 3 },
        { path: join(root, 'sub', 'deep.txt'), size: 2 },
      ],
      skippedLinks: ['config.txt', 'far', 'sibling', 'sub/out.txt'],
    });
  });

  it('an ignored link is neither followed nor reported', () => {
    fresh();
    put('root/.gitignore', 'out.txt\n');
    put('root/a.txt');
    put('outside.txt');
    symlinkSync(join(dir, 'outside.txt'), join(dir, 'root', 'out.txt'));
    expect(listing(join(dir, 'root'))).toEqual({ files: [{ path: join(dir, 'root', 'a.txt'), size: 2 }], skippedLinks: [] });
  });
});
