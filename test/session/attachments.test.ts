import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listTextFileCandidates } from '../../src/session/attachment-walk.js';
import { checkAttachmentLimits, readAttachments, sniff } from '../../src/session/attachments.js';
import type { Attachment } from '../../src/protocol/events.js';

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniff', () => {
  it('knows the four image types, PDF and UTF-8 text by their bytes', () => {
    expect(sniff(bytes([0x89], 'PNG\r\n\x1a\n', 'rest'))).toEqual({ kind: 'image', mime: 'image/png' });
    expect(sniff(bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'))).toEqual({ kind: 'image', mime: 'image/jpeg' });
    expect(sniff(bytes('GIF89a', [1, 0]))).toEqual({ kind: 'image', mime: 'image/gif' });
    expect(sniff(bytes('GIF87a'))).toEqual({ kind: 'image', mime: 'image/gif' });
    expect(sniff(bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))).toEqual({ kind: 'image', mime: 'image/webp' });
    expect(sniff(bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '))).toEqual({ kind: 'unknown' });
    expect(sniff(bytes('%PDF-1.7\n'))).toEqual({ kind: 'pdf' });
    expect(sniff(Buffer.from('\uFEFFhéllo ✓\n'))).toEqual({ kind: 'text', text: 'héllo ✓\n' });
    expect(sniff(Buffer.alloc(0))).toEqual({ kind: 'text', text: '' });
  });

  it('refuses NUL bytes and invalid UTF-8', () => {
    expect(sniff(bytes('abc', [0], 'def'))).toEqual({ kind: 'unknown' });
    expect(sniff(bytes([0xc3, 0x28]))).toEqual({ kind: 'unknown' });
  });
});

describe('directories', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const put = (name: string, content: string | Buffer = 'x\n') => {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  };

  it('honours nested .gitignore files (negation included) and the repository above the directory', () => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-walk-'));
    put('.git/HEAD');
    put('.gitignore', 'secret.txt\n');
    put('pkg/.gitignore', '*.md\n!keep.md\n');
    put('pkg/a.md');
    put('pkg/keep.md');
    put('pkg/secret.txt');
    put('pkg/sub/b.txt');
    put('pkg/.cache/c.txt');
    symlinkSync(join(dir, 'pkg'), join(dir, 'pkg', 'sub', 'loop'));
    const root = join(dir, 'pkg');
    expect(listTextFileCandidates(root).files.map((f) => f.path)).toEqual([join(root, 'keep.md'), join(root, 'sub', 'b.txt')]);
  });

  it('leaves out a big binary unread, and refuses a big text file by name', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-walk-'));
    put('video.mp4', Buffer.alloc(9 * 1024 * 1024, 0));
    put('notes.txt', 'short\n');
    const found = await readAttachments([dir], { warn: () => {} });
    expect(found.map((a) => a.path)).toEqual([join(dir, 'notes.txt')]);
    put('log.txt', 'x'.repeat(9 * 1024 * 1024));
    await expect(readAttachments([dir], { warn: () => {} })).rejects.toThrow(/log\.txt: .*8 MiB limit/);
  });

  it('refuses a directory with no text files in it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-walk-'));
    put('.hidden/a.txt');
    put('img.png', bytes([0x89], 'PNG\r\n\x1a\n'));
    await expect(readAttachments([dir], { warn: () => {} })).rejects.toThrow(/holds no text files/);
  });
});

describe('checkAttachmentLimits', () => {
  const image = (bytesCount: number): Attachment => ({ kind: 'image', path: 'i.png', mime: 'image/png', data: '', bytes: bytesCount });
  it('lets an image of exactly 3.75 MiB through and names the one over it', () => {
    expect(() => checkAttachmentLimits([image(3.75 * 1024 * 1024)], '')).not.toThrow();
    expect(() => checkAttachmentLimits([image(3.75 * 1024 * 1024 + 1)], '')).toThrow(/i\.png: the image is 3\.75 MiB, over the 3\.75 MiB limit/);
  });

  it('counts the message text against the 8 MiB text limit', () => {
    const text: Attachment = { kind: 'text', path: 't.txt', text: 'a'.repeat(1024) };
    expect(() => checkAttachmentLimits([text], 'b'.repeat(8 * 1024 * 1024 - 1024))).not.toThrow();
    expect(() => checkAttachmentLimits([text], 'b'.repeat(8 * 1024 * 1024 - 1023))).toThrow(/t\.txt: .*8 MiB limit/);
  });
});
