import { Writable } from 'node:stream';

/** A writable stream that keeps what is written to it, as text (a stderr to read back in a test). */
export function textSink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}
