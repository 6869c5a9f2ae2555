import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { createGzip, constants } from 'node:zlib';

/**
 * A gateway that attacks its client (SPEC §20), for tests of the built binary. A real node:http
 * server on 127.0.0.1 speaking both interfaces (`/v1/chat/completions`, `/v1/messages`); the request's
 * `model` names the attack, so one server serves every test. Responses are written on the raw socket:
 * Node's own response writer refuses the escape bytes a hostile gateway puts in its headers.
 */
export const ATTACKS = [
  /** ESC, CSI, OSC (title, clipboard) and C1 bytes in text, reasoning, tool name and arguments, model. */
  'escapes',
  /**
   * C1 controls in the request-id and another header (shown by -v). undici refuses C0 (ESC) in a
   * header value outright, so those cannot reach gatechat; bytes from 0x80 can.
   */
  'escape-headers',
  /** ESC in a header value: undici refuses the whole response (it must be named, not called a connect failure). */
  'invalid-headers',
  /** An HTTP 400 whose message carries escapes and echoes the request's credentials. */
  'escape-error',
  /** An error event inside a 200 stream, with escapes and the echoed credentials. */
  'escape-stream-error',
  /** One SSE line that inflates without end (1 GiB of it is ~1 MB of gzip on the wire). */
  'gzip-bomb',
  /** Keep-alive comments every 100 ms, forever: never idle, never an answer. */
  'keep-alive-forever',
  /** Text events as fast as the client reads them, forever (64 KiB each). */
  'data-forever',
  /** Tool-call argument fragments as fast as the client reads them, forever (64 KiB each). */
  'tool-args-forever',
  /** A plain-text body sent as text/event-stream. */
  'not-sse',
  /** Text, one data event whose JSON does not parse, more text, then the end marker. */
  'broken-json',
  /** Reads the request and never answers: no headers, no body (a --no-stream wait that never ends). */
  'silent',
] as const;

export type Attack = (typeof ATTACKS)[number];

/** The escape sequences every field carries: OSC 0 (title), OSC 52 (clipboard), CSI (clear), a C1 CSI, BEL. */
export const ESCAPES = '\u001b]0;pwned\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b31m\u0007';
/** What a header value can carry past undici's check: C1 controls (CSI, OSC, ST). */
export const HEADER_ESCAPES = '\u009b2J\u009d0;pwned\u009c';

export interface HostileRequest {
  path: string;
  attack: string;
  headers: IncomingMessage['headers'];
}

export interface HostileGateway {
  /** `http://127.0.0.1:P/v1`: what the client is given as --base-url. */
  base: string;
  requests: HostileRequest[];
  close(): Promise<void>;
}

type Api = 'chat' | 'messages';

/** The SSE framing of one interface, so every attack runs on both. */
interface Framing {
  start(model: string): string;
  text(text: string): string;
  reasoning(text: string): string;
  toolCall(name: string, args: string): string;
  end(): string;
  error(message: string): string;
  /** The opening of a text event whose string never closes (the gzip bomb's one line). */
  openText(): string;
}

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

const chatFraming: Framing = {
  start: (model) => sse({ model, choices: [{ index: 0, delta: { role: 'assistant' } }] }),
  text: (text) => sse({ choices: [{ index: 0, delta: { content: text } }] }),
  reasoning: (text) => sse({ choices: [{ index: 0, delta: { reasoning_content: text } }] }),
  toolCall: (name, args) => sse({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: args } }] } }] }),
  end: () => sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 5 } }) + 'data: [DONE]\n\n',
  error: (message) => sse({ error: { message, code: 'hostile' } }),
  openText: () => 'data: {"choices":[{"index":0,"delta":{"content":"',
};

const messagesFraming: Framing = {
  start: (model) =>
    sse({ type: 'message_start', message: { id: 'msg_1', model, usage: { input_tokens: 3, output_tokens: 0 } } }, 'message_start') +
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
  text: (text) => sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta'),
  reasoning: (text) =>
    sse({ type: 'content_block_start', index: 5, content_block: { type: 'thinking', thinking: '' } }, 'content_block_start') +
    sse({ type: 'content_block_delta', index: 5, delta: { type: 'thinking_delta', thinking: text } }, 'content_block_delta') +
    sse({ type: 'content_block_stop', index: 5 }, 'content_block_stop'),
  toolCall: (name, args) =>
    sse({ type: 'content_block_start', index: 7, content_block: { type: 'tool_use', id: 'toolu_1', name, input: {} } }, 'content_block_start') +
    sse({ type: 'content_block_delta', index: 7, delta: { type: 'input_json_delta', partial_json: args } }, 'content_block_delta') +
    sse({ type: 'content_block_stop', index: 7 }, 'content_block_stop'),
  end: () =>
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop') +
    sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }, 'message_delta') +
    sse({ type: 'message_stop' }, 'message_stop'),
  error: (message) => sse({ type: 'error', error: { type: 'hostile', message } }, 'error'),
  openText: () => 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"',
};

/** What the client sent that identifies it: echoed back by the attacks that test redaction. */
function credentials(headers: IncomingMessage['headers']): string {
  return [headers.authorization, headers['x-api-key']].filter(Boolean).join(' ');
}

function head(status: number, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  // Connection: close and no length: the body ends when the socket does, whatever the attack writes.
  return [`HTTP/1.1 ${status} Hostile`, 'Connection: close', ...lines, '', ''].join('\r\n');
}

const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

/**
 * Resolves when `writer` drains or `socket` closes, leaving no listener behind (an endless writer
 * waits thousands of times).
 */
function drainedOrClosed(writer: NodeJS.EventEmitter, socket: NodeJS.EventEmitter = writer): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      writer.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    writer.on('drain', done);
    socket.on('close', done);
  });
}

/** Writes until the client goes away, waiting for the socket to drain. */
async function writeForever(socket: Socket, next: () => string | Buffer, pauseMs = 0): Promise<void> {
  while (!socket.destroyed && socket.writable) {
    if (!socket.write(next())) {
      await drainedOrClosed(socket);
    }
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

async function attack(name: string, api: Api, socket: Socket, headers: IncomingMessage['headers']): Promise<void> {
  const f = api === 'chat' ? chatFraming : messagesFraming;
  const echo = credentials(headers);
  switch (name as Attack) {
    case 'escapes': {
      socket.write(head(200, SSE_HEADERS));
      socket.write(f.start(`model${ESCAPES}`));
      socket.write(f.reasoning(`thinking${ESCAPES}`));
      socket.write(f.text(`text${ESCAPES}`));
      socket.write(f.toolCall(`tool${ESCAPES}`, JSON.stringify({ arg: `value${ESCAPES}` })));
      socket.end(f.end());
      return;
    }
    case 'escape-headers':
      socket.write(head(200, { ...SSE_HEADERS, 'x-request-id': `req${HEADER_ESCAPES}`, 'Retry-After': HEADER_ESCAPES, 'x-hostile': HEADER_ESCAPES }));
      socket.write(f.start('hostile'));
      socket.write(f.text('headers'));
      socket.end(f.end());
      return;
    case 'invalid-headers':
      socket.end(head(200, { ...SSE_HEADERS, 'x-request-id': `req${ESCAPES}` }) + f.start('hostile') + f.text('never read') + f.end());
      return;
    case 'escape-error': {
      const body = JSON.stringify({ error: { message: `refused${ESCAPES} for ${echo}`, type: 'invalid_request_error' } });
      socket.end(head(400, { 'Content-Type': 'application/json', 'x-request-id': `req${HEADER_ESCAPES}` }) + body);
      return;
    }
    case 'escape-stream-error': {
      socket.write(head(200, SSE_HEADERS));
      socket.write(f.start('hostile'));
      socket.write(f.text('partial'));
      socket.end(f.error(`upstream failed${ESCAPES} for ${echo}`));
      return;
    }
    case 'gzip-bomb': {
      socket.write(head(200, { ...SSE_HEADERS, 'Content-Encoding': 'gzip' }));
      const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
      gzip.on('error', () => undefined);
      gzip.pipe(socket);
      socket.on('close', () => gzip.destroy());
      gzip.write(f.start('hostile'));
      gzip.write(f.openText());
      const block = Buffer.alloc(1024 * 1024, 'a');
      // 1 GiB at most, so a client that never stops cannot keep the test's CPU busy forever.
      for (let i = 0; i < 1024 && !socket.destroyed; i++) {
        if (!gzip.write(block)) await drainedOrClosed(gzip, socket);
      }
      gzip.end('"}}]}\n\n');
      return;
    }
    case 'keep-alive-forever':
      socket.write(head(200, SSE_HEADERS));
      await writeForever(socket, () => ': keep-alive\n\n', 100);
      return;
    case 'data-forever': {
      socket.write(head(200, SSE_HEADERS));
      socket.write(f.start('hostile'));
      const event = f.text('x'.repeat(64 * 1024));
      await writeForever(socket, () => event);
      return;
    }
    case 'tool-args-forever': {
      socket.write(head(200, SSE_HEADERS));
      socket.write(f.start('hostile'));
      const fragment = f.toolCall('lookup', 'y'.repeat(64 * 1024));
      // Messages opens and closes a block per call: only the argument delta repeats.
      const repeat = api === 'chat' ? fragment : fragment.split('\n\n').find((event) => event.includes('input_json_delta'))! + '\n\n';
      if (api === 'messages') socket.write(fragment.split('\n\n')[0] + '\n\n');
      await writeForever(socket, () => repeat);
      return;
    }
    case 'not-sse':
      socket.end(head(200, { 'Content-Type': 'text/event-stream' }) + 'Service temporarily unavailable. Please try again later.\n');
      return;
    case 'broken-json':
      socket.write(head(200, SSE_HEADERS));
      socket.write(f.start('hostile'));
      socket.write(f.text('before '));
      socket.write('data: {"choices":[{"index":0,"delta":{"content":"lost\n\n');
      socket.write(f.text('after'));
      socket.end(f.end());
      return;
    case 'silent':
      // The socket stays open until the client gives up or the gateway closes.
      return;
    default:
      socket.end(head(404, { 'Content-Type': 'application/json' }) + JSON.stringify({ error: { message: `no attack named ${name}` } }));
  }
}

/** Starts the hostile gateway on 127.0.0.1 (a free port). */
export async function startHostileGateway(): Promise<HostileGateway> {
  const requests: HostileRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let model = '';
      try {
        model = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: unknown }).model ?? '');
      } catch {
        // a GET (models) or a body we cannot read: no attack named
      }
      const path = req.url ?? '';
      requests.push({ path, attack: model, headers: req.headers });
      const socket = res.socket!;
      // The raw socket is ours from here: Node's writer must not add a response of its own.
      res.detachSocket(socket);
      const api: Api = path.endsWith('/messages') ? 'messages' : 'chat';
      attack(model, api, socket, req.headers).catch(() => socket.destroy());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return {
    base: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
