import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_PROMPT_BYTES, readPromptInput } from '../../src/session/stdin.js';
import { UsageError } from '../../src/exit-codes.js';

const piped = (...chunks: Array<string | Buffer>) => Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
const tty = () => Object.assign(Readable.from([]), { isTTY: true });

async function usageError(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).exitCode).toBe(2);
  return error as UsageError;
}

describe('readPromptInput (SPEC §1)', () => {
  it('puts stdin first, a blank line, then the arguments joined by spaces', async () => {
    expect(await readPromptInput({ stdin: piped('notes\nline 2\n'), args: ['summarize', 'this'], readStdin: true })).toBe(
      'notes\nline 2\n\nsummarize this',
    );
  });

  it('uses stdin alone without arguments, dropping only one trailing newline', async () => {
    expect(await readPromptInput({ stdin: piped('  indented\n\n'), args: [], readStdin: true })).toBe('  indented\n');
    expect(await readPromptInput({ stdin: piped('crlf\r\n'), args: [], readStdin: true })).toBe('crlf');
  });

  it('uses the arguments alone when stdin is a TTY, empty, whitespace, or skipped', async () => {
    expect(await readPromptInput({ stdin: tty(), args: ['hi'], readStdin: true })).toBe('hi');
    expect(await readPromptInput({ stdin: piped(), args: ['hi'], readStdin: true })).toBe('hi');
    expect(await readPromptInput({ stdin: piped(' \n'), args: ['hi'], readStdin: true })).toBe('hi');
    const unread = piped('ignored');
    expect(await readPromptInput({ stdin: unread, args: ['hi'], readStdin: false })).toBe('hi');
  });

  it('joins UTF-8 characters split across chunks', async () => {
    const bytes = Buffer.from('héllo 😀');
    const prompt = await readPromptInput({ stdin: piped(bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)), args: [], readStdin: true });
    expect(prompt).toBe('héllo 😀');
  });

  it('refuses an empty prompt', async () => {
    const message = 'empty prompt: pass a prompt or pipe text on stdin';
    expect((await usageError(readPromptInput({ stdin: piped(''), args: [], readStdin: true }))).message).toBe(message);
    expect((await usageError(readPromptInput({ stdin: piped('\n\n  '), args: [], readStdin: true }))).message).toBe(message);
    expect((await usageError(readPromptInput({ stdin: tty(), args: [], readStdin: true }))).message).toBe(message);
    expect((await usageError(readPromptInput({ stdin: piped('x'), args: ['  '], readStdin: false }))).message).toBe(message);
  });

  it('refuses invalid UTF-8', async () => {
    const error = await usageError(readPromptInput({ stdin: piped(Buffer.from([0x68, 0x69, 0xff, 0xfe])), args: ['x'], readStdin: true }));
    expect(error.message).toBe('stdin is not valid UTF-8 text');
    await usageError(readPromptInput({ stdin: piped(Buffer.from([0xe2, 0x82])), args: [], readStdin: true })); // truncated sequence
  });

  it('accepts exactly 8 MiB', async () => {
    const prompt = await readPromptInput({ stdin: piped(Buffer.alloc(MAX_PROMPT_BYTES, 0x61)), args: [], readStdin: true });
    expect(prompt.length).toBe(MAX_PROMPT_BYTES);
  });

  it('refuses more than 8 MiB and stops reading as soon as the cap is passed', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let produced = 0;
    const endless = new Readable({
      read() {
        produced++;
        this.push(produced > 1000 ? null : chunk);
      },
    });
    const error = await usageError(readPromptInput({ stdin: endless, args: ['summarize'], readStdin: true }));
    expect(error.message).toBe('input is larger than 8 MiB; refusing to truncate it (pass a smaller file)');
    expect(produced).toBeLessThan(30);
    expect(endless.destroyed).toBe(true);
  });
});

describe('readPromptInput with a stdin that reads itself whole (direct-stdin.ts)', () => {
  /** A WholeInput that records whether it was allowed to block the event loop. */
  const whole = (text: string, asked: boolean[]) => ({
    isTTY: false,
    readAllBytes: (_limit: number, _overflow: () => never, _onChunk?: () => void, blocking = false) => {
      asked.push(blocking);
      return Promise.resolve(Buffer.from(text));
    },
  });

  it('lets it block (fs.readSync: no thread pool) only when no hint about a silent pipe has to fire meanwhile', async () => {
    const asked: boolean[] = [];
    expect(await readPromptInput({ stdin: whole('piped', asked), args: [], readStdin: true })).toBe('piped');
    expect(await readPromptInput({ stdin: whole('piped', asked), args: [], readStdin: true, onSilent: () => undefined })).toBe('piped');
    expect(asked).toEqual([true, false]);
  });
});
