import type { ClientRequest, IncomingMessage } from 'node:http';
// A single request straight to the gateway, sent with Node's own node:http. A one-shot sends one request
// and needs no keep-alive pool, so it does not load undici, whose WebAssembly HTTP parser is compiled on
// every start that loads it (SPEC §10: the piped one-shot at most 1.15× a minimal node:http client).
// Pools (batch, tool loops), proxies and streamed uploads still go through undici (`undici-route.ts`).

/**
 * An answer's raw bytes as either client gives them: node:http's IncomingMessage, or undici's dispatched
 * body (`undici-dispatch.ts`). Destroying it before its end aborts the request.
 */
export interface ResponseBody extends AsyncIterable<Buffer> {
  destroy(error?: Error): unknown;
  /** True when the whole answer arrived and was read (undici's dispatched body); absent: unknown. */
  readonly drained?: boolean;
}

/** One attempt's response, whichever client sent it. */
export interface RawResponse<Body extends ResponseBody = ResponseBody> {
  statusCode: number;
  /** Lower-case names; a repeated header as an array. */
  headers: Record<string, string | string[] | undefined>;
  body: Body;
  /** Reads and drops the rest of the body (a redirect's), freeing the connection. */
  discard(): Promise<void>;
}

export interface SendOptions {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Called once the connection is up (TLS: secured) and the request handed to it, in the check phase after. */
  onWritten?: () => void;
}

export interface DirectTimeouts {
  connectMs: number;
  headersMs: number;
  idleMs: number;
}

/**
 * The codes of this client's own time-outs, read by `preHeaderError()` and `bodyError()` like undici's
 * (UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT, UND_ERR_BODY_TIMEOUT).
 */
export const CONNECT_TIMEOUT = 'GATECHAT_CONNECT_TIMEOUT';
export const HEADERS_TIMEOUT = 'GATECHAT_HEADERS_TIMEOUT';
export const IDLE_TIMEOUT = 'GATECHAT_IDLE_TIMEOUT';

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function abortError(): Error {
  return Object.assign(new Error('the request was cancelled'), { name: 'AbortError', code: 'ABORT_ERR' });
}

// On first use, as require() gives it: an ESM import of node:http reads its lazy getters, which load
// Node's bundled undici on 22+; node:https (TLS, crypto) only for https:// gateways. Not through
// createRequire(import.meta.url): that loads node:module and makes a file URL (~1 ms of a one-shot).
type RequestFn = typeof import('node:http').request;
export function clientFor(protocol: string): RequestFn {
  return protocol === 'https:' ? process.getBuiltinModule('node:https').request : process.getBuiltinModule('node:http').request;
}

/** Requests still open, so `destroyAll()` can let the process exit at once. */
export class DirectClient {
  private readonly open = new Set<ClientRequest>();

  constructor(private readonly timeouts: DirectTimeouts) {}

  /** Resolves at the response headers; rejects with the error that ended the attempt before them. */
  send(url: URL, options: SendOptions): Promise<RawResponse<IncomingMessage>> {
    const { connectMs, headersMs, idleMs } = this.timeouts;
    const headers = { ...options.headers };
    // A string body goes with its length, as undici sends it: without one node:http would send it chunked.
    if (options.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(options.body));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortError());
    return new Promise<RawResponse<IncomingMessage>>((resolve, reject) => {
      let settled = false;
      let response: IncomingMessage | undefined;
      let timer: NodeJS.Timeout | undefined;
      let req: ClientRequest;
      const fail = (error: Error) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        req.destroy();
        reject(error);
      };
      const arm = (ms: number, error: () => Error) => {
        clearTimeout(timer);
        timer = setTimeout(() => fail(error()), ms);
      };
      try {
        // agent: false — a connection of its own, closed after the answer (nothing to keep alive for).
        req = clientFor(url.protocol)(url, { method: options.method, headers, agent: false });
      } catch (error) {
        return reject(error as Error); // a header value Node refuses (control characters)
      }
      // Not node:http's own `signal` option: aborted during the body, it ends the response as if complete,
      // and an answer cut by Ctrl-C or --max-time would read as one the gateway cut short.
      const onAbort = () => (response ? response.destroy(abortError()) : fail(abortError()));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.open.add(req);
      req.once('close', () => {
        this.open.delete(req);
        signal?.removeEventListener('abort', onAbort);
      });
      arm(connectMs, () => codedError(`connect timeout after ${connectMs} ms`, CONNECT_TIMEOUT));
      req.once('socket', (socket) => {
        socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
          arm(headersMs, () => codedError(`no response headers after ${headersMs} ms`, HEADERS_TIMEOUT));
          // node:http writes what it holds for the socket in a listener added after this one, in this same
          // event: an immediate runs once it is written.
          if (options.onWritten) setImmediate(options.onWritten);
        });
      });
      // Errors after the headers reach the body's reader (through the response); before them, the caller.
      req.on('error', fail);
      req.once('response', (res: IncomingMessage) => {
        clearTimeout(timer);
        settled = true;
        response = res;
        // Any bytes on the socket count as activity (SSE keep-alive comments included), as undici's bodyTimeout.
        res.socket.setTimeout(idleMs, () => res.destroy(codedError(`no data for ${idleMs} ms`, IDLE_TIMEOUT)));
        res.once('end', () => res.socket?.setTimeout(0));
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headersDistinct,
          body: res,
          discard: () =>
            new Promise<void>((done) => {
              res.once('close', done).resume();
            }),
        });
      });
      // A Buffer, not the string: node:http would write the headers with a string body in its encoding
      // (UTF-8), where header values are Latin-1 — a key with a non-ASCII letter would go out changed.
      req.end(options.body === undefined ? undefined : Buffer.from(options.body));
    });
  }

  destroyAll(): void {
    for (const req of this.open) req.destroy();
    this.open.clear();
  }
}
