// DirectStdin (src/session/direct-stdin.ts): stdin read whole through its descriptor, the stream standing
// in where the descriptor will not do. The built binary's kinds of stdin: test/e2e/one-shot.test.ts.
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectStdin } from '../../src/session/direct-stdin.js';

const dir = mkdtempSync(join(tmpdir(), 'gatechat-direct-stdin-'));
const fds: number[] = [];
afterAll(() => {
  for (const fd of fds) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

function fdOf(path: string): number {
  const fd = openSync(path, 'r');
  fds.push(fd);
  return fd;
}

const overflow = (): never => {
  throw new Error('overflow');
};
/** A stream that fails the test if it is asked for. */
const noStream = () => {
  throw new Error('the stream was built');
};

describe('DirectStdin', () => {
  it('reads a file through its descriptor, whole, without building the stream', async () => {
    const file = join(dir, 'big.txt');
    // More than one read's buffer (64 KB).
    const text = 'x'.repeat(200_000);
    writeFileSync(file, text);
    let chunks = 0;
    const stdin = new DirectStdin(noStream, fdOf(file));
    expect(stdin.isTTY).toBe(false);
    const bytes = await stdin.readAllBytes(1 << 20, overflow, () => chunks++);
    expect(bytes.toString()).toBe(text);
    expect(chunks).toBeGreaterThan(1);
  });

  it('/dev/null is a character device but no terminal; a closed descriptor no terminal either', () => {
    expect(new DirectStdin(noStream, fdOf('/dev/null')).isTTY).toBe(false);
    const fd = openSync(join(dir, 'closed.txt'), 'w');
    closeSync(fd);
    expect(new DirectStdin(noStream, fd).isTTY).toBe(false);
  });

  it('an empty file is no bytes', async () => {
    const file = join(dir, 'empty.txt');
    writeFileSync(file, '');
    expect((await new DirectStdin(noStream, fdOf(file)).readAllBytes(10, overflow)).length).toBe(0);
  });

  it('stops at the limit: onOverflow is called once more than `limit` bytes arrived', async () => {
    const file = join(dir, 'over.txt');
    writeFileSync(file, Buffer.alloc(300_000, 97));
    await expect(new DirectStdin(noStream, fdOf(file)).readAllBytes(100_000, overflow)).rejects.toThrow('overflow');
  });

  it('blocking (fs.readSync): the same bytes and first-chunk calls; a descriptor it refuses is left to the stream', async () => {
    const file = join(dir, 'blocking.txt');
    const text = 'y'.repeat(150_000);
    writeFileSync(file, text);
    let chunks = 0;
    expect((await new DirectStdin(noStream, fdOf(file)).readAllBytes(1 << 20, overflow, () => chunks++, true)).toString()).toBe(text);
    expect(chunks).toBeGreaterThan(1);
    await expect(new DirectStdin(noStream, fdOf(file)).readAllBytes(100_000, overflow, undefined, true)).rejects.toThrow('overflow');
    const stream = () => Readable.from([Buffer.from('from the stream')]) as unknown as NodeJS.ReadStream;
    expect((await new DirectStdin(stream, fdOf(dir)).readAllBytes(1000, overflow, undefined, true)).toString()).toBe('from the stream');
  });

  it('a descriptor fs.read refuses (a directory) is left to the stream', async () => {
    const stream = () => Readable.from([Buffer.from('from the stream')]) as unknown as NodeJS.ReadStream;
    const bytes = await new DirectStdin(stream, fdOf(dir)).readAllBytes(1000, overflow);
    expect(bytes.toString()).toBe('from the stream');
  });
});
