// Piped stdin that says nothing (SPEC §1): the user is told once, after SILENT_STDIN_MS, unless a
// byte or EOF came first; attachments alone make an empty prompt ''; readAllBytes on its own.
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readAllBytes, readPromptInput, SILENT_STDIN_MS } from '../../src/session/stdin.js';

afterEach(() => vi.useRealTimers());

describe('readPromptInput: a silent pipe', () => {
  it('tells once when nothing comes, and not at all after a chunk or an EOF', async () => {
    vi.useFakeTimers();
    const said: string[] = [];
    // Nothing yet: told once at the time.
    const open = new PassThrough();
    const waiting = readPromptInput({ stdin: open, args: [], readStdin: true, onSilent: () => said.push('open') });
    await vi.advanceTimersByTimeAsync(SILENT_STDIN_MS - 1);
    expect(said).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(said).toEqual(['open']);
    open.end('late words');
    expect(await waiting).toBe('late words');
    // A chunk, then the pipe stays open past the time: nothing said.
    const slow = new PassThrough();
    const reading = readPromptInput({ stdin: slow, args: [], readStdin: true, onSilent: () => said.push('slow') });
    slow.write('first ');
    await vi.advanceTimersByTimeAsync(3 * SILENT_STDIN_MS);
    slow.end('second');
    expect(await reading).toBe('first second');
    // EOF at once, no byte: nothing said, even later.
    expect(await readPromptInput({ stdin: Readable.from([]), args: ['words'], readStdin: true, onSilent: () => said.push('eof') })).toBe('words');
    await vi.advanceTimersByTimeAsync(3 * SILENT_STDIN_MS);
    expect(said).toEqual(['open']);
  });

  it('with attachments, an empty prompt is the empty string', async () => {
    expect(await readPromptInput({ stdin: Readable.from([]), args: [], readStdin: true, allowEmpty: true })).toBe('');
    expect(await readPromptInput({ stdin: Readable.from([]), args: ['  '], readStdin: false, allowEmpty: true })).toBe('');
  });
});

describe('readAllBytes', () => {
  it('reads string and byte chunks without an onChunk callback', async () => {
    const bytes = await readAllBytes(Readable.from(['é', Buffer.from('x')]), 10, () => {
      throw new Error('over');
    });
    expect(bytes.toString('utf8')).toBe('éx');
    await expect(readAllBytes(Readable.from(['abc', 'def']), 5, () => {
      throw new Error('over');
    })).rejects.toThrow('over');
  });

  // The same answers whichever way the stream is read (events for a fresh stream, else `for await`).
  it('rejects with an error the stream reports, and when it is destroyed before its end', async () => {
    const failing = new PassThrough();
    const failed = readAllBytes(failing, 10, () => {
      throw new Error('over');
    });
    failing.write('ab');
    failing.destroy(new Error('EIO: read failed'));
    await expect(failed).rejects.toThrow('EIO: read failed');
    const cut = new PassThrough();
    const premature = readAllBytes(cut, 10, () => {
      throw new Error('over');
    });
    cut.write('ab');
    cut.destroy();
    await expect(premature).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('reads a stream already flowing, and gives nothing for one already read to its end', async () => {
    const flowing = new PassThrough();
    flowing.on('data', () => {});
    const reading = readAllBytes(flowing, 10, () => {
      throw new Error('over');
    });
    flowing.end('xyz');
    expect((await reading).toString()).toBe('xyz');
    const used = Readable.from(['once']);
    expect((await readAllBytes(used, 10, () => {
      throw new Error('over');
    })).toString()).toBe('once');
    expect((await readAllBytes(used, 10, () => {
      throw new Error('over');
    })).length).toBe(0);
  });
});
