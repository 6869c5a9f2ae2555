import type { Writable } from 'node:stream';

/**
 * Writes and waits for 'drain' when the reader is slower than the gateway, so a slow consumer of
 * stdout holds the stream back instead of making memory grow.
 */
export async function writeWithBackpressure(stream: Writable, chunk: string): Promise<void> {
  if (stream.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const onDrain = () => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (error: Error) => {
      stream.off('drain', onDrain);
      reject(error);
    };
    stream.once('drain', onDrain);
    stream.once('error', onError);
  });
}

/**
 * Coalesces the deltas decoded from one network read into one write. A gateway packs many tokens
 * into a read; a write (a syscall on a pipe) per token was most of the CPU of a long answer. The
 * flush runs on setImmediate, i.e. as soon as the current read is decoded, so output still appears
 * as it arrives. Callers await `write` for backpressure.
 */
export class CoalescingWriter {
  private pending = '';
  private scheduled: Promise<void> | null = null;

  constructor(private readonly stream: Writable) {}

  write(text: string): Promise<void> | void {
    this.pending += text;
    if (this.pending.length >= 64 * 1024) return this.flush();
    this.scheduled ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => this.flush().then(resolve, reject));
    });
  }

  async flush(): Promise<void> {
    this.scheduled = null;
    if (!this.pending) return;
    const chunk = this.pending;
    this.pending = '';
    await writeWithBackpressure(this.stream, chunk);
  }
}
