/**
 * Terminal safety decided per output stream (SPEC §8, §20). Whether text is sanitised depends on the
 * stream it is written to, not on another one: a terminal's stderr is sanitised while stdout goes to a
 * file. The plain renderers (pipe, document, extract, JSON, compare) take only `GuardedStream`s, which
 * `guardStream()` alone makes, so a renderer or a stream added later cannot skip the decision.
 */
import type { OutputSink } from './output.js';
import { sanitizeForTerminal, TerminalSanitizer } from './terminal-text.js';

declare const decided: unique symbol;

/** A stream whose terminal safety has been decided: text written to it is drawn safely on a terminal. */
export interface GuardedStream extends OutputSink {
  /** Only guardStream() makes one (the symbol exists only as a type). */
  readonly [decided]: true;
  /** The stream is a terminal: what is written loses every control character but \n and \t. */
  readonly terminal: boolean;
  /**
   * Ends a run of pieces (a streamed answer or reasoning): a sequence still open at its end is dropped,
   * so it cannot swallow what the next writer puts on the same stream.
   */
  settle(): void;
  /**
   * One whole line (a tool's call or outcome, a diagnostic): a run of pieces still open ends first, and
   * the line is sanitised whole, so a sequence it leaves open (`ESC ]` at its end) cannot hold back the
   * lines written after it, as it would if it were written as a piece.
   */
  writeLine(line: string): boolean;
}

class Guarded implements OutputSink {
  // Pieces of a stream may split an escape sequence: it is held back until it ends (TerminalSanitizer).
  private readonly sanitizer: TerminalSanitizer | null;

  constructor(
    private readonly stream: OutputSink,
    readonly terminal: boolean,
  ) {
    this.sanitizer = terminal ? new TerminalSanitizer() : null;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  write(chunk: string): boolean {
    const text = this.sanitizer ? this.sanitizer.push(chunk) : chunk;
    return text === '' ? true : this.stream.write(text);
  }

  settle(): void {
    this.sanitizer?.end();
  }

  writeLine(line: string): boolean {
    this.settle();
    return this.stream.write(`${this.terminal ? sanitizeForTerminal(line) : line}\n`);
  }

  once(event: 'drain' | 'close', listener: () => void): this {
    this.stream.once(event, listener);
    return this;
  }

  off(event: 'drain' | 'close', listener: () => void): this {
    this.stream.off(event, listener);
    return this;
  }
}

/**
 * `stream`, sanitised when it is a terminal (its own `isTTY`, or `terminal` for a stream that stands for
 * part of one, such as a compare-mode lane); a pipe or file keeps the bytes unchanged.
 */
export function guardStream(stream: OutputSink & { isTTY?: boolean }, terminal = Boolean(stream.isTTY)): GuardedStream {
  return new Guarded(stream, terminal) as unknown as GuardedStream;
}
