import { fstatSync, read, readSync } from 'node:fs';
import { readAllBytes } from './stdin.js';

/**
 * The process's standard input for reading it whole (the prompt of a one-shot): through its
 * descriptor, with fs.read, when that works — a pipe, a socket, a file, /dev/null — instead of
 * `process.stdin`. For a pipe that getter builds a net.Socket (node:net's stream, a libuv pipe handle
 * that also switches the pipe to non-blocking for every process sharing it): ~1.5 ms of every piped
 * one-shot's start, for a pipe that mostly holds one chunk or nothing at all.
 *
 * Whatever the descriptor does not allow is left to `process.stdin`, which then reads the rest as
 * before: a non-blocking pipe (EAGAIN), a directory (EISDIR), a closed descriptor (EBADF).
 */
export class DirectStdin {
  constructor(
    /** The stream that stands in for the descriptor (called only when it does). */
    private readonly stream: () => NodeJS.ReadStream = () => process.stdin,
    private readonly fd = 0,
  ) {}

  /** As `process.stdin.isTTY`, without building the stream. */
  get isTTY(): boolean {
    return isTerminal(this.fd);
  }

  /**
   * readAllBytes (stdin.ts) of the descriptor: same limit, overflow and first-chunk calls. `blocking`: read
   * with fs.readSync, the event loop held until bytes or EOF arrive. An asynchronous fs.read starts libuv's
   * thread pool (four threads) first: 1–3 ms before the request of every piped one-shot, where nothing else
   * has to run while the prompt is read. Not when something must (stdin.ts: the hint about a silent pipe).
   */
  async readAllBytes(limit: number, onOverflow: () => never, onChunk?: () => void, blocking = false): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      let n: number;
      try {
        n = blocking ? readSync(this.fd, buffer, 0, buffer.length, null) : await readOnce(this.fd, buffer);
      } catch (error) {
        // Not readable this way (EAGAIN: a non-blocking pipe; EISDIR, EBADF, …): the stream reads the
        // rest, or reports the error as it always has.
        if (total > 0 && !isRetryable(error)) throw error;
        const rest = await readAllBytes(this.stream(), limit - total, onOverflow, onChunk);
        return Buffer.concat([...chunks, rest], total + rest.length);
      }
      if (n === 0) return Buffer.concat(chunks, total);
      onChunk?.();
      total += n;
      if (total > limit) onOverflow();
      // Copied out: a pipe gives 4–64 KB per read, and a kept 64 KB buffer per 4 KB would add up.
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
  }
}

/**
 * As the `isTTY` of the stream Node builds for descriptor `fd` (process.stdin, stdout, stderr), without
 * building it (cli/std-streams.ts for stdout and stderr).
 */
export function isTerminal(fd: number): boolean {
  // A terminal is a character device (so is /dev/null): node:tty is loaded for those alone.
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    // Closed (EBADF): no terminal, as isatty says.
    return false;
  }
  return process.getBuiltinModule('node:tty').isatty(fd);
}

const isRetryable = (error: unknown) => (error as NodeJS.ErrnoException).code === 'EAGAIN';

function readOnce(fd: number, buffer: Buffer): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buffer, 0, buffer.length, null, (error, n) => (error ? reject(error) : resolve(n))));
}
