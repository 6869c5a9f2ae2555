import type { Readable } from 'node:stream';
import { UsageError } from '../exit-codes.js';

/** SPEC §1: input over this is refused, never truncated. */
export const MAX_PROMPT_BYTES = 8 * 1024 * 1024;

/** A stdin that reads itself whole (direct-stdin.ts: through its descriptor) instead of a stream. */
export interface WholeInput {
  isTTY: boolean;
  /** `blocking`: nothing else needs the event loop until the input is read (direct-stdin.ts). */
  readAllBytes(limit: number, onOverflow: () => never, onChunk?: () => void, blocking?: boolean): Promise<Buffer>;
}

export interface PromptInput {
  stdin: (NodeJS.ReadableStream & { isTTY?: boolean }) | WholeInput;
  /** Prompt words from the command line. */
  args: string[];
  /** false with --no-stdin. */
  readStdin: boolean;
  /** Attachments alone are a message: an empty prompt is then '' instead of a usage error. */
  allowEmpty?: boolean;
  /** Called once when piped stdin gives nothing (no byte, no EOF) for SILENT_STDIN_MS. */
  onSilent?: () => void;
}

/** How long an open, empty pipe is waited on before the user is told what gatechat is doing. */
export const SILENT_STDIN_MS = 2000;

/**
 * SPEC §1: piped stdin first, a blank line, then the prompt arguments joined by spaces. stdin alone
 * when there are no arguments; the arguments alone when stdin is a TTY, skipped, or only whitespace.
 * stdin keeps its text as is except one trailing newline (the one `echo` and editors add), so a
 * file's own indentation and inner blank lines reach the model unchanged. A UTF-8 BOM is dropped.
 */
export async function readPromptInput({ stdin, args, readStdin, allowEmpty = false, onSilent }: PromptInput): Promise<string> {
  const fromArgs = args.join(' ');
  let fromStdin = '';
  if (readStdin && !stdin.isTTY) {
    const silence = onSilent ? setTimeout(onSilent, SILENT_STDIN_MS) : undefined;
    // The first chunk (or EOF, or an error) ends the wait: a slow producer that has begun is fine.
    const stopWaiting = () => clearTimeout(silence);
    try {
      const overflow = () => {
        throw new UsageError('input is larger than 8 MiB; refusing to truncate it (pass a smaller file)');
      };
      // Without a hint to give, nothing runs while stdin is waited on: it may be read blocking.
      const bytes = 'readAllBytes' in stdin ? await stdin.readAllBytes(MAX_PROMPT_BYTES, overflow, stopWaiting, silence === undefined) : await readAllBytes(stdin, MAX_PROMPT_BYTES, overflow, stopWaiting);
      fromStdin = stripOneNewline(decodeUtf8(bytes));
    } finally {
      stopWaiting();
    }
  }
  const hasStdin = fromStdin.trim() !== '';
  const prompt = hasStdin && fromArgs ? `${fromStdin}\n\n${fromArgs}` : hasStdin ? fromStdin : fromArgs;
  if (prompt.trim() === '') {
    if (allowEmpty) return '';
    throw new UsageError('empty prompt: pass a prompt or pipe text on stdin');
  }
  return prompt;
}

/**
 * Reads a stream to EOF. Calls `onOverflow` (which should throw) as soon as more than `limit` bytes
 * arrived, and stops reading there: a 2 GB pipe is refused after 8 MiB, not after 2 GB.
 */
export function readAllBytes(stream: NodeJS.ReadableStream, limit: number, onOverflow: () => never, onChunk?: () => void): Promise<Buffer> {
  const readable = stream as Readable;
  // A stream already ended, destroyed or being read: the async iterator's own answer for each case.
  if (readable.readableEnded !== false || readable.destroyed !== false || readable.readableFlowing === true) return readAllBytesIterating(stream, limit, onOverflow, onChunk);
  // Events, not `for await`: the iterator's machinery (an end-of-stream watcher, a promise per chunk)
  // was ~1.5 ms of every piped one-shot's start, for a pipe that mostly holds one chunk or none.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (error?: unknown) => {
      readable.off('data', onData).off('end', onEnd).off('error', finish).off('close', onClose);
      if (error === undefined) resolve(Buffer.concat(chunks, total));
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onData = (chunk: string | Uint8Array) => {
      try {
        onChunk?.();
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
        total += buffer.length;
        if (total > limit) onOverflow();
        chunks.push(buffer);
      } catch (error) {
        // Nothing more is read or buffered, as when `for await` is left early.
        readable.destroy();
        finish(error);
      }
    };
    const onEnd = () => finish();
    // Closed with no end and no error (destroyed by another reader): what `for await` calls a premature close.
    const onClose = () => finish(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    readable.on('data', onData).once('end', onEnd).once('error', finish).once('close', onClose);
  });
}

async function readAllBytesIterating(stream: NodeJS.ReadableStream, limit: number, onOverflow: () => never, onChunk?: () => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    onChunk?.();
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: Buffer.from takes a string as UTF-8 by default and copies bytes whatever the encoding argument, so either branch gives the same bytes
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk as Uint8Array);
    total += buffer.length;
    if (total > limit) {
      // Leaving the loop early destroys the stream, so nothing more is buffered.
      onOverflow();
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new UsageError('stdin is not valid UTF-8 text');
  }
}

export function stripOneNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}
