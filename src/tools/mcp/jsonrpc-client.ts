import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { callToolResultOf, initializeResultOf, listToolsResultOf, messageKind, type CallToolResult, type ListedTool, type ListToolsResult } from './shapes.js';

// The MCP client of a stdio server: JSON-RPC 2.0 over stdio-transport.ts, doing what the SDK's Client
// (client/index.js over shared/protocol.js) does for what gatechat asks of a server — initialize with
// version negotiation, notifications/initialized, tools/list, tools/call with its output-schema check,
// timeouts, cancellation — with the same messages on the wire and the same errors. The SDK's Client
// loads its zod schemas (types.js) at its module's top level: ~21 ms of CPU on an idle machine, taken
// from the servers booting on the same cores; shapes.ts makes the same checks as plain functions.
// Servers at a URL keep the SDK's Client (http-connect.ts).

/** The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS (a test compares them). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS = [LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** The SDK's ErrorCode values this client uses. */
export const ErrorCode = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
} as const;

/** The SDK's McpError: its message is what users see in a failed call or start. */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${message}`);
    this.name = 'McpError';
  }
}

export interface RequestOptions {
  /** ms before the request is given up (and the server told so); the SDK's default is 60 s. */
  timeout?: number;
  signal?: AbortSignal;
}

/** The part of a client the runner uses: this one for stdio servers, the SDK's Client for URL ones. */
export interface McpSession {
  listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<ListToolsResult>;
  /** Loose: the SDK's result type also has its older `toolResult` form, which gatechat shows as empty. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }, resultSchema?: undefined, options?: RequestOptions): Promise<{ [key: string]: unknown; content?: unknown; structuredContent?: unknown; isError?: unknown }>;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 60_000;

type Settle = (response: { result: unknown } | Error) => void;

export class StdioMcpClient implements McpSession {
  private transport: Transport | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Settle>();
  /** By tool name, from tools/list: a check of its structured results against its outputSchema. */
  private readonly outputValidators = new Map<string, JsonSchemaValidator<unknown>>();
  private readonly taskOnlyTools = new Set<string>();
  private outputSchemas: jsonSchemaValidator | undefined;

  constructor(private readonly clientInfo: { name: string; version: string }) {}

  /** Starts the transport, then initialize and notifications/initialized; closes it again on any failure. */
  async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    if (this.transport) throw new Error('Already connected to a transport.');
    this.transport = transport;
    transport.onclose = () => this.closed();
    // The SDK's Client reports transport errors (an unparsable line, a failed write) to an onerror nobody
    // sets in gatechat: they are dropped, and what they break shows as a closed connection or a timeout.
    transport.onerror = () => {};
    transport.onmessage = (message) => this.received(message);
    await transport.start();
    try {
      const result = initializeResultOf(await this.request('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: this.clientInfo }, options));
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) throw new Error(`Server's protocol version is not supported: ${result.protocolVersion}`);
      await this.notify('notifications/initialized');
    } catch (error) {
      void this.close();
      throw error;
    }
  }

  /** One page; the tools' output schemas and task support are kept for callTool (every page's). */
  async listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<ListToolsResult> {
    const result = listToolsResultOf(await this.request('tools/list', params, options));
    if (params?.cursor === undefined) {
      this.outputValidators.clear();
      this.taskOnlyTools.clear();
    }
    for (const tool of result.tools) this.remember(tool);
    return result;
  }

  async callTool(params: { name: string; arguments?: Record<string, unknown> }, _resultSchema?: undefined, options?: RequestOptions): Promise<CallToolResult> {
    if (this.taskOnlyTools.has(params.name)) {
      throw new McpError(ErrorCode.InvalidRequest, `Tool "${params.name}" requires task-based execution, which gatechat does not support`);
    }
    const result = callToolResultOf(await this.request('tools/call', params, options));
    const validator = this.outputValidators.get(params.name);
    if (!validator) return result;
    // The SDK's checks, in its order and with its messages.
    if (!result.structuredContent && !result.isError) {
      throw new McpError(ErrorCode.InvalidRequest, `Tool ${params.name} has an output schema but did not return structured content`);
    }
    if (result.structuredContent) {
      this.outputSchemas ??= (await import('./output-validator.js')).lazyOutputValidator();
      let valid: ReturnType<JsonSchemaValidator<unknown>>;
      try {
        valid = validator(result.structuredContent);
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!valid.valid) throw new McpError(ErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${valid.errorMessage}`);
    }
    return result;
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }

  private remember(tool: ListedTool): void {
    if (tool.outputSchema) {
      const schema = tool.outputSchema;
      // ajv is loaded (output-validator.ts) only once a result needs checking: callTool loads it first.
      let compiled: JsonSchemaValidator<unknown> | undefined;
      this.outputValidators.set(tool.name, (input) => (compiled ??= this.outputSchemas!.getValidator(schema))(input));
    }
    if (tool.execution?.taskSupport === 'required') this.taskOnlyTools.add(tool.name);
  }

  /** Sends a request and waits for its result; a timeout or an abort tells the server (notifications/cancelled). */
  private request(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    const { signal } = options;
    return new Promise((resolve, reject) => {
      const transport = this.transport;
      if (!transport) return reject(new Error('Not connected'));
      signal?.throwIfAborted();
      const id = this.nextId++;
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const cancel = (reason: unknown) => {
        done();
        this.transport?.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(reason) } }).catch(() => {});
        reject(reason instanceof McpError ? reason : new McpError(ErrorCode.RequestTimeout, String(reason)));
      };
      const onAbort = () => cancel(signal!.reason);
      this.pending.set(id, (response) => {
        done();
        if (response instanceof Error) reject(response);
        else resolve(response.result);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      const ms = options.timeout ?? DEFAULT_TIMEOUT_MS;
      timer = setTimeout(() => cancel(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: ms })), ms);
      // Keys in the SDK's order ({...request, jsonrpc, id}): the same bytes on the wire.
      const message = (params === undefined ? { method, jsonrpc: '2.0', id } : { method, params, jsonrpc: '2.0', id }) as JSONRPCMessage;
      transport.send(message).catch((error: unknown) => {
        done();
        reject(error);
      });
    });
  }

  private async notify(method: string): Promise<void> {
    if (!this.transport) throw new Error('Not connected');
    await this.transport.send({ method, jsonrpc: '2.0' });
  }

  private received(message: JSONRPCMessage): void {
    const kind = messageKind(message);
    const body = message as unknown as Record<string, unknown>;
    if (kind === 'result' || kind === 'error') {
      // A response to a request given up (timed out, cancelled) or never made is dropped, as the SDK does.
      const settle = this.pending.get(Number(body.id));
      if (!settle) return;
      if (kind === 'result') settle({ result: body.result });
      else {
        const error = body.error as { code: number; message: string; data?: unknown };
        settle(new McpError(error.code, error.message, error.data));
      }
    } else if (kind === 'request') {
      // The SDK's Client, with no capabilities declared, answers ping and nothing else (roots/list,
      // sampling/createMessage, elicitation/create: method not found).
      const reply: JSONRPCMessage =
        body.method === 'ping'
          ? { result: {}, jsonrpc: '2.0', id: body.id as number }
          : { jsonrpc: '2.0', id: body.id as number, error: { code: ErrorCode.MethodNotFound, message: 'Method not found' } };
      this.transport?.send(reply).catch(() => {});
    }
    // Notifications (progress, logging, list changes, cancellation of a ping) need nothing from this client.
  }

  /** The transport closed (the server exited, or close()): every waiting request fails. */
  private closed(): void {
    this.transport = undefined;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const settle of waiting) settle(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
  }
}
