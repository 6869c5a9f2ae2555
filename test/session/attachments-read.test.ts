// readAttachments (SPEC §12, §18, §20) driven directly: single files typed by their bytes, stdin, the
// URL and command hand-offs, the refusals word for word, and the size limits at their exact boundaries.
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { Attachment } from '../../src/protocol/events.js';
import {
  checkAttachmentLimits,
  MAX_ATTACHMENTS_BYTES,
  MAX_IMAGE_BYTES,
  MAX_TEXT_BYTES,
  readAttachments,
  skippedLinksLine,
  sniff,
  type ReadAttachmentsOptions,
} from '../../src/session/attachments.js';

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'gatechat-attach-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
/** A fresh path under the test directory, with `content` written (or a sparse file of `size` bytes). */
function file(name: string, content: string | Buffer): string {
  const path = join(dir, `${counter++}-${name}`);
  writeFileSync(path, content);
  return path;
}
function sparse(name: string, size: number, head: Buffer = Buffer.alloc(0)): string {
  const path = file(name, head);
  truncateSync(path, size);
  return path;
}
function freshDir(name: string): string {
  const path = join(dir, `${counter++}-${name}`);
  mkdirSync(path);
  return path;
}

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('rest of a png')]);
const PDF = Buffer.from('%PDF-1.4\n%tiny\n');
const quiet: ReadAttachmentsOptions = { warn: () => {} };
const refusal = (paths: string[], options: ReadAttachmentsOptions = quiet) =>
  readAttachments(paths, options).then(
    () => 'attached',
    (e: Error & { exitCode?: number; hint?: string }) => `${e.exitCode} ${e.message}`,
  );

describe('sniff: signatures where they are, a BOM only at the start', () => {
  it('WEBP needs its RIFF header; a BOM at the end stays', () => {
    expect(sniff(Buffer.from('ABCD\0\0\0\0WEBPVP8 '.replace(/\0/g, 'x')))).toEqual({ kind: 'text', text: 'ABCDxxxxWEBPVP8 ' });
    expect(sniff(Buffer.from('text\uFEFF'))).toEqual({ kind: 'text', text: 'text\uFEFF' });
    expect(sniff(Buffer.from('\uFEFFtext'))).toEqual({ kind: 'text', text: 'text' });
  });
});

describe('single files', () => {
  it('a text file, a PNG and a PDF as the attachments they are', async () => {
    const text = file('notes.txt', '\uFEFFhéllo\n');
    const png = file('shot.bin', PNG);
    const pdf = file('paper', PDF);
    expect(await readAttachments([text, png, pdf], quiet)).toEqual([
      { kind: 'text', path: text, text: 'héllo\n' },
      { kind: 'image', path: png, mime: 'image/png', data: PNG.toString('base64'), bytes: PNG.length },
      { kind: 'pdf', path: pdf, data: PDF.toString('base64'), bytes: PDF.length },
    ]);
  });

  it('refuses a file of another type, one that is missing, and one that cannot be read, each by name', async () => {
    const binary = file('data.bin', Buffer.from([0x41, 0x00, 0x42]));
    expect(await refusal([binary])).toBe(`2 cannot attach ${binary}: it is not UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF`);
    const missing = join(dir, 'missing.txt');
    expect(await refusal([missing])).toBe(`2 cannot attach ${missing}: no such file or directory`);
    const under = join(file('plain.txt', 'x'), 'below');
    expect(await refusal([under])).toBe(`2 cannot attach ${under}: ENOTDIR`);
    // A socket: stat says a file, but there is nothing to read.
    const socket = join(dir, `${counter++}-sock`);
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      expect(await refusal([socket])).toBe(`2 cannot attach ${socket}: ENXIO`);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  // Root reads any file: these run where the tests do not run as root (CI).
  it.skipIf(process.getuid?.() === 0)('refuses a file it may not read, alone or as a big file in a directory', async () => {
    const locked = file('locked.txt', 'x');
    chmodSync(locked, 0);
    expect(await refusal([locked])).toBe(`2 cannot attach ${locked}: permission denied`);
    const root = freshDir('locked-tree');
    writeFileSync(join(root, 'a.txt'), 'a');
    const big = join(root, 'big.log');
    writeFileSync(big, '');
    truncateSync(big, 9 * MiB);
    chmodSync(big, 0);
    expect(await refusal([root])).toBe(`2 cannot attach ${big}: permission denied`);
  });

  it('refuses a file over 32 MiB by its size, unread; one of exactly 32 MiB is read', async () => {
    const big = sparse('big.iso', 33.5 * MiB);
    expect(await refusal([big])).toBe(`2 cannot attach ${big}: it is 33.5 MiB, over the 32 MiB limit for all attachments`);
    const exact = sparse('exact.iso', MAX_ATTACHMENTS_BYTES);
    expect(await refusal([exact])).toBe(`2 cannot attach ${exact}: it is not UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF`);
  });

  it('a text file of exactly 8 MiB is within the text limit (the message text counts from the caller)', async () => {
    const exact = file('exact.txt', 'a'.repeat(MAX_TEXT_BYTES));
    const [read] = await readAttachments([exact], quiet);
    expect(read).toMatchObject({ kind: 'text', path: exact });
    expect(read!.kind === 'text' && read.text.length).toBe(MAX_TEXT_BYTES);
  });
});

describe('stdin (-a -)', () => {
  it('is read and named stdin; binary stdin is refused under that name', async () => {
    expect(await readAttachments(['-'], { ...quiet, stdin: Readable.from([Buffer.from('piped\n')]) })).toEqual([{ kind: 'text', path: 'stdin', text: 'piped\n' }]);
    expect(await refusal(['-'], { ...quiet, stdin: Readable.from([Buffer.from([0, 1, 2])]) })).toBe(
      '2 cannot attach stdin: it is not UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF',
    );
  });

  it('is refused where there is none, and past 32 MiB', async () => {
    expect(await refusal(['-'])).toBe('2 cannot attach -: there is no stdin here');
    const big = Readable.from([Buffer.alloc(MAX_ATTACHMENTS_BYTES), Buffer.alloc(1)]);
    expect(await refusal(['-'], { ...quiet, stdin: big })).toBe('2 cannot attach stdin: it is over the 32 MiB limit for all attachments');
  });
});

describe('URLs and commands: only where the caller allows them', () => {
  const fetched: string[] = [];
  const fetchUrl = async (url: string): Promise<Attachment> => {
    fetched.push(url);
    return { kind: 'text', path: url, text: url.endsWith('/big') ? 'p'.repeat(MAX_TEXT_BYTES) : 'page' };
  };

  it('http:// and https:// values go to fetchUrl, any case; files and other text do not', async () => {
    fetched.length = 0;
    const local = file('local.txt', 'local');
    const found = await readAttachments(['http://a.test/x', 'HTTPS://b.test/y', local], { ...quiet, fetchUrl });
    expect(found.map((a) => a.path)).toEqual(['http://a.test/x', 'HTTPS://b.test/y', local]);
    expect(fetched).toEqual(['http://a.test/x', 'HTTPS://b.test/y']);
    const inPath = `${dir}/nowhere/http://x`;
    expect(await refusal([inPath], { ...quiet, fetchUrl })).toBe(`2 cannot attach ${inPath}: no such file or directory`);
    expect(await refusal(['https://c.test/z'])).toBe('2 cannot attach https://c.test/z: no such file or directory');
    expect(fetched).toEqual(['http://a.test/x', 'HTTPS://b.test/y']);
  });

  it('a fetched page of exactly 8 MiB of text is within the limit', async () => {
    const [page] = await readAttachments(['https://a.test/big'], { ...quiet, fetchUrl });
    expect(page!.kind === 'text' && page.text.length).toBe(MAX_TEXT_BYTES);
  });

  it('!command runs only with commands on, and its output counts against the limit at once', async () => {
    expect(await readAttachments(['!printf hi'], { ...quiet, commands: true })).toEqual([{ kind: 'text', path: '$ printf hi', text: 'hi' }]);
    expect(await refusal(['!printf hi'])).toBe('2 cannot attach !printf hi: no such file or directory');
    // With commands on, a plain file is still a file.
    const local = file('plain.txt', 'plain');
    expect(await readAttachments([local], { ...quiet, commands: true })).toEqual([{ kind: 'text', path: local, text: 'plain' }]);
    const most = file('most.txt', 'a'.repeat(MAX_TEXT_BYTES - 3));
    const both = await readAttachments([most, '!printf abc'], { ...quiet, commands: true });
    expect(both.map((a) => a.path)).toEqual([most, '$ printf abc']);
  });
});

describe('directories', () => {
  it('warns once with the links it skipped, and not at all when there are none', async () => {
    const root = freshDir('tree');
    writeFileSync(join(root, 'a.txt'), 'a');
    const warnings: string[] = [];
    await readAttachments([root], { warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([]);
    symlinkSync(file('outside.txt', 'secret'), join(root, 'out.txt'));
    const found = await readAttachments([root], { warn: (line) => warnings.push(line) });
    expect(found.map((a) => a.path)).toEqual([join(root, 'a.txt')]);
    expect(warnings).toEqual([`skipped 1 link that leaves ${root}/: out.txt`]);
  });

  it('leaves out files that are no text (null from the sniff included), keeps the text ones', async () => {
    const root = freshDir('mixed');
    writeFileSync(join(root, 'a.bin'), Buffer.from([1, 0, 2]));
    writeFileSync(join(root, 'b.png'), PNG);
    writeFileSync(join(root, 'c.txt'), 'c');
    expect(await readAttachments([root], quiet)).toEqual([{ kind: 'text', path: join(root, 'c.txt'), text: 'c' }]);
  });

  it('a big file is peeked at: NUL or a signature leaves it out unread; anything else is read (and may be refused)', async () => {
    const zeros = freshDir('zeros');
    writeFileSync(join(zeros, 'a.txt'), 'a');
    const video = join(zeros, 'video.mp4');
    writeFileSync(video, '');
    truncateSync(video, 33 * MiB);
    expect((await readAttachments([zeros], quiet)).map((a) => a.path)).toEqual([join(zeros, 'a.txt')]);
    // An image signature says binary even with no NUL in the first 8 KiB.
    const picture = join(zeros, 'picture.png');
    writeFileSync(picture, Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(8192, 0x61)]));
    truncateSync(picture, 33 * MiB);
    expect((await readAttachments([zeros], quiet)).map((a) => a.path)).toEqual([join(zeros, 'a.txt')]);

    // Not UTF-8, but no NUL in the first 8 KiB: it could be text cut mid-character, so it is read.
    const odd = freshDir('odd');
    const blob = join(odd, 'blob.dat');
    writeFileSync(blob, Buffer.alloc(8192, 0xff));
    truncateSync(blob, 33 * MiB);
    expect(await refusal([odd])).toBe(`2 cannot attach ${blob}: it is 33 MiB, over the 32 MiB limit for all attachments`);
  });

  it('peeking at many big binaries leaves no file open', async () => {
    const root = freshDir('many');
    writeFileSync(join(root, 'keep.txt'), 'k');
    for (let i = 0; i < 40; i++) {
      const fd = openSync(join(root, `bin-${String(i).padStart(2, '0')}`), 'w');
      writeSync(fd, Buffer.from([0]));
      closeSync(fd);
      truncateSync(join(root, `bin-${String(i).padStart(2, '0')}`), 9 * MiB);
    }
    const before = readdirSync('/proc/self/fd').length;
    expect((await readAttachments([root], quiet)).map((a) => a.path)).toEqual([join(root, 'keep.txt')]);
    expect(readdirSync('/proc/self/fd').length - before).toBeLessThan(10);
  });
});

describe('skippedLinksLine', () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `l${i + 1}`);
  it('one link, several, and the summary past twenty', () => {
    expect(skippedLinksLine('repo', ['a.md'])).toBe('skipped 1 link that leaves repo/: a.md');
    expect(skippedLinksLine('repo/', ['a.md', 'b/c.md'])).toBe('skipped 2 links that leave repo/: a.md, b/c.md');
    expect(skippedLinksLine('/abs/repo', names(20))).toBe(`skipped 20 links that leave /abs/repo/: ${names(20).join(', ')}`);
    expect(skippedLinksLine('/abs/repo/', names(23))).toBe(`skipped 23 links that leave /abs/repo/: ${names(20).join(', ')}, and 3 more`);
  });
});

describe('checkAttachmentLimits: each limit at its edge, the file that crosses it named', () => {
  const pdf = (path: string, bytes: number): Attachment => ({ kind: 'pdf', path, data: '', bytes });
  const image = (path: string, bytes: number): Attachment => ({ kind: 'image', path, mime: 'image/png', data: '', bytes });
  const text = (path: string, bytes: number): Attachment => ({ kind: 'text', path, text: 't'.repeat(bytes) });
  const error = (attachments: Attachment[], message = '') => {
    try {
      checkAttachmentLimits(attachments, message);
      return 'ok';
    } catch (e) {
      const err = e as Error & { exitCode: number; hint?: string };
      return `${err.exitCode} ${err.message}${err.hint ? ` | ${err.hint}` : ''}`;
    }
  };

  it('images: sizes in the message as MiB without trailing zeros, and the hint', () => {
    expect(error([image('a.png', 10 * MiB)])).toBe(
      '2 cannot attach a.png: the image is 10 MiB, over the 3.75 MiB limit for images (5 MiB once base64-encoded) | scale it down or convert it to JPEG',
    );
    expect(error([image('b.png', 4.5 * MiB)])).toMatch(/^2 cannot attach b\.png: the image is 4\.5 MiB, /);
    // The image limit is for images only.
    expect(error([pdf('big.pdf', MAX_IMAGE_BYTES + 1)])).toBe('ok');
  });

  it('all attachments: 32 MiB together is fine, a byte more is refused naming the file that crossed', () => {
    expect(error([pdf('a.pdf', 16 * MiB), pdf('b.pdf', 16 * MiB)])).toBe('ok');
    expect(error([pdf('a.pdf', 16 * MiB), pdf('b.pdf', 16 * MiB + 1)])).toBe(
      '2 cannot attach b.pdf: with it the attachments are over the 32 MiB limit for all attachments',
    );
    expect(error([pdf('a.pdf', 20 * MiB), pdf('b.pdf', 20 * MiB)])).toMatch(/^2 cannot attach b\.pdf: /);
  });

  it('text: only text counts against the 8 MiB text limit', () => {
    expect(error([pdf('a.pdf', 7 * MiB), text('t.txt', 2 * MiB)])).toBe('ok');
    expect(error([text('t.txt', MAX_TEXT_BYTES)])).toBe('ok');
    expect(error([text('t.txt', MAX_TEXT_BYTES)], 'x')).toBe('2 cannot attach t.txt: with it the text (stdin and the prompt included) is over the 8 MiB limit');
  });
});
