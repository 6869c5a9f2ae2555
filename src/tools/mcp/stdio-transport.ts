import type { ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LaunchedServer } from './launch.js';

// The SDK's stdio client transport for a process launch.ts spawned before the SDK was loaded: the
// SDK's StdioClientTransport spawns its own process in start(), so this is that class with the spawn
// taken out. Framing (ReadBuffer, serializeMessage) is the SDK's; reading, writing and close() do what
// its transport does (close: stdin closed, 2 s to exit, SIGTERM, 2 s more, SIGKILL).

const GRACE_MS = 2000;

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
  private readonly readBuffer = new ReadBuffer();

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
      try {
        this.readBuffer.append(chunk);
        this.readMessages();
      } catch (error) {
        this.onerror?.(error as Error);
        this.close().catch(() => {});
      }
    });
    child.stdout?.on('error', (error) => this.onerror?.(error));
  }

  private readMessages(): void {
    for (;;) {
      try {
        const message = this.readBuffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (!this.process?.stdin) throw new Error('Not connected');
      if (this.process.stdin.write(serializeMessage(message))) resolve();
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
    this.readBuffer.clear();
  }
}
