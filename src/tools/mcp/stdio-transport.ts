import type { ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LaunchedServer } from './launch.js';
import { messageKind } from './shapes.js';

// The SDK's stdio client transport for a process launch.ts spawned first: the SDK's StdioClientTransport
// spawns its own process in start(), so this is that class with the spawn taken out. Reading, writing
// and close() do what its transport does (close: stdin closed, 2 s to exit, SIGTERM, 2 s more, SIGKILL).
// The framing is its too — one JSON message a line; at most 10 MiB buffered, counted as its ReadBuffer
// counts (an unfinished line plus the chunk that arrives); a line that is not JSON or no JSON-RPC message
// reported and skipped — but written here: the SDK's (shared/stdio.js) checks each message with its zod
// schemas, and loading those is the cost jsonrpc-client.ts avoids.

const GRACE_MS = 2000;
/** The SDK's STDIO_DEFAULT_MAX_BUFFER_SIZE: a server writing more than this without a newline is cut off. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** Splits a byte stream into lines; a line's chunks are joined once, when its newline arrives. */
export class LineBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  /**
   * The complete lines `chunk` ends (without their newline or a carriage return before it). The limit is
   * checked as the SDK's ReadBuffer checks it: on what waits plus the whole chunk, before its lines are read.
   */
  append(chunk: Buffer): string[] {
    if (this.size + chunk.length > MAX_LINE_BYTES) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${MAX_LINE_BYTES} bytes`);
    }
    return this.completeLines(chunk);
  }

  private completeLines(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end);
      const line = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece]);
      this.chunks = [];
      this.size = 0;
      lines.push(line.toString('utf8').replace(/\r$/, ''));
      start = end + 1;
    }
    if (start < chunk.length) {
      this.chunks.push(chunk.subarray(start));
      this.size += chunk.length - start;
    }
    return lines;
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}

/** A line as a JSON-RPC message; throws (JSON's error, or one naming the line) when it is neither. */
export function parseMessage(line: string): JSONRPCMessage {
  const message: unknown = JSON.parse(line);
  if (messageKind(message) === null) throw new Error(`not a JSON-RPC message: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
  return message as JSONRPCMessage;
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    child.kill(signal);
  } catch {
    // gone already
  }
}

export class LaunchedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private process: ChildProcess | undefined;
  private started = false;
  private readonly lines = new LineBuffer();

  constructor(private readonly launched: LaunchedServer) {}

  get pid(): number | null {
    return this.launched.child.pid ?? null;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LaunchedStdioTransport already started');
    this.started = true;
    try {
      await this.launched.spawned;
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
    const child = this.launched.child;
    this.process = child;
    const closed = () => {
      this.process = undefined;
      this.onclose?.();
    };
    // A server that ended before the transport was attached: its pipes' end was seen already.
    if (this.launched.closed) setImmediate(closed);
    else child.once('close', closed);
    child.on('error', (error) => this.onerror?.(error));
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('data', (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = this.lines.append(chunk);
      } catch (error) {
        this.onerror?.(error as Error);
        this.close().catch(() => {});
        return;
      }
      this.readMessages(lines);
    });
    child.stdout?.on('error', (error) => this.onerror?.(error));
  }

  private readMessages(lines: string[]): void {
    for (const line of lines) {
      try {
        this.onmessage?.(parseMessage(line));
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (!this.process?.stdin) throw new Error('Not connected');
      if (this.process.stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.process.stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const grace = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, GRACE_MS).unref())]);
      try {
        child.stdin?.end();
      } catch {
        // gone already
      }
      await grace();
      if (child.exitCode === null) {
        kill(child, 'SIGTERM');
        await grace();
      }
      if (child.exitCode === null) kill(child, 'SIGKILL');
    }
    this.lines.clear();
  }
}
