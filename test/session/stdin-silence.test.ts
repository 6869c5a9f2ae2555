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
});
