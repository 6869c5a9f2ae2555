/** What the plain writers need of a stream: a Node Writable, or a wrapper such as a GuardedStream. */
export interface OutputSink {
  readonly destroyed: boolean;
  write(chunk: string): boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * A stream opened at its first use (a write, a listener): process.stdout and process.stderr are built when
 * first read (cli/std-streams.ts), and a piped one-shot writes its answer only once the request is out. A
 * stream not opened yet is not destroyed, and has no listener to remove.
 */
export class SinkOnFirstUse implements OutputSink {
  private opened: OutputSink | undefined;

  constructor(private readonly openStream: () => OutputSink) {}

  open(): OutputSink {
    return (this.opened ??= this.openStream());
  }

  get destroyed(): boolean {
    return this.opened?.destroyed ?? false;
  }

  write(chunk: string): boolean {
    return this.open().write(chunk);
  }

  once(event: 'drain' | 'close', listener: () => void): this {
    this.open().once(event, listener);
    return this;
  }

  off(event: 'drain' | 'close', listener: () => void): this {
    this.opened?.off(event, listener);
    return this;
  }
}

/**
 * Writes and waits for 'drain' when the reader is slower than the gateway, so a slow consumer of
 * stdout holds the stream back instead of making memory grow.
 */
export async function writeWithBackpressure(stream: OutputSink, chunk: string): Promise<void> {
  await writeOrWait(stream, chunk);
}

/**
 * writeWithBackpressure without a promise when the stream took the chunk: a batch writes a line per
 * prompt, and each async level between the line and the write was a few promise jobs more per line.
 */
export function writeOrWait(stream: OutputSink, chunk: string): Promise<void> | undefined {
  // The reader went away (EPIPE): the caller stops the turn; nothing more can be delivered.
  if (stream.destroyed) return undefined;
  if (stream.write(chunk)) return undefined;
  return new Promise<void>((resolve) => {
    const settle = () => {
      stream.off('drain', settle);
      stream.off('close', settle);
      resolve();
    };
    // 'close' too: a reader that closes while we wait for 'drain' must not leave us waiting forever.
    stream.once('drain', settle);
    stream.once('close', settle);
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
  private scheduled = false;
  /** A flush waiting for 'drain': later writes wait on it, so a slow reader holds the stream back. */
  private draining: Promise<void> | null = null;

  constructor(private readonly stream: OutputSink) {}

  write(text: string): Promise<void> | void {
    this.pending += text;
    if (this.draining) return this.draining;
    if (this.pending.length >= 64 * 1024) return this.flush();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
    }
  }

  async flush(): Promise<void> {
    if (this.draining) await this.draining;
    if (!this.pending) return;
    const chunk = this.pending;
    this.pending = '';
    this.draining = writeWithBackpressure(this.stream, chunk).finally(() => {
      this.draining = null;
    });
    await this.draining;
  }
}
