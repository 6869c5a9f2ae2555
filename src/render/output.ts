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
