import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Dispatchers } from './dispatchers.js';
import { CONNECT_TIMEOUT, HEADERS_TIMEOUT, type RawResponse, type ResponseBody } from './direct-request.js';
import { proxyLabel } from './proxy-url.js';
import { ExitCode, GatechatError } from '../exit-codes.js';
import { VERSION } from '../version.js';
import { endpointInBaseUrlHint, isLoopbackHost } from './base-url.js';
import { RequestAbortedError, bodyChunks, errorCode, isAbortError, readText } from './body.js';
import { NetworkError, httpErrorFrom, requestIdFrom, seconds } from './errors.js';
import { buildHeaders, credentialHeaderNames, redactHeaders, redactSecrets, secretsOf } from './headers.js';
import { requestedWaitMs, retryDelayMs, shouldRetry } from './retry.js';
import { statusText } from './status-text.js';

export { isAbortError, RequestAbortedError };

export interface Connection {
  /** Already normalised (SPEC §5.1), e.g. http://127.0.0.1:8080/v1 */
  baseUrl: string;
  apiKey?: string;
  auth: 'bearer' | 'x-api-key';
  headers: Record<string, string>;
  timeouts: { connectMs: number; headersMs: number; idleMs: number };
  retries: number;
  /** SPEC §20 `--max-time`: the bound on a whole request, retries included; undefined: none. */
  maxTimeMs?: number;
  /**
   * SPEC §14: a proxy URL (`--proxy`, the `proxy` key) replaces HTTPS_PROXY/HTTP_PROXY; undefined reads
   * them; null never uses a proxy (the in-process demo gateway). NO_PROXY applies unless null.
   */
  proxy?: string | null;
  /** Many requests on one keep-alive pool (batch); without it each request has its own connection. */
  pool?: ConnectionPool;
  /** Paces every attempt, retries included, across concurrent requests (batch's rate limiter). */
  gate?: AttemptGate;
  /**
   * Work the caller would otherwise do once the answer starts (a one-shot: building process.stdout),
   * done while the gateway works on the request: called after a direct request is written (each
   * attempt), in the check phase after the write. Not on undici's route (a pool, a proxy).
   */
  onRequestWritten?: () => void;
}

/**
 * How an attempt ended, as far as pacing cares: a 429, an overloaded gateway (503, 529) or a
 * Retry-After asks everyone to slow down.
 */
export type AttemptEnd = { kind: 'ok' } | { kind: 'failed' } | { kind: 'rate_limited'; waitMs: number | null };

export interface AttemptGate {
  /** Resolves when an attempt may be sent; rejects with an abort error when `signal` aborts. */
  enter(signal?: AbortSignal): Promise<AttemptPermit>;
}

export interface AttemptPermit {
  /**
   * Called exactly once, when the attempt's response is over (for an answer: its whole body).
   * Returns true when the gate takes a `rate_limited` refusal on itself — it lowered the concurrency
   * that caused it — so the request waits for a new permit without spending one of its retries.
   */
  leave(end: AttemptEnd): boolean;
}

/**
 * One keep-alive connection pool shared by many requests, so a batch of thousands does not pay for
 * a new connection per prompt. Its timeouts are the connection's; close() when done.
 */
export class ConnectionPool {
  /** Direct and proxied dispatchers, as a single request has them, kept for every request. */
  readonly dispatchers: Dispatchers;

  #secrets: { conn: Connection; apiKey: string | undefined; headers: Record<string, string>; proxy: string | null | undefined; list: string[] } | null = null;

  constructor(conn: Connection) {
    this.dispatchers = new Dispatchers(conn, conn.timeouts.headersMs, true);
  }

  /**
   * secretsOf(conn), worked out once for the pool's many requests (twice per request before: the key's
   * escaped forms and the proxy variables from process.env, each time). Worked out again if the
   * connection's key, headers or proxy were replaced; the environment is the one the run started with.
   */
  secretsOf(conn: Connection): string[] {
    const known = this.#secrets;
    if (known && known.conn === conn && known.apiKey === conn.apiKey && known.headers === conn.headers && known.proxy === conn.proxy) return known.list;
    const list = secretsOf(conn);
    this.#secrets = { conn, apiKey: conn.apiKey, headers: conn.headers, proxy: conn.proxy, list };
    return list;
  }

  #target: { conn: Connection; baseUrl: string; apiKey: string | undefined; auth: Connection['auth']; headers: Record<string, string>; path: string; value: RequestTarget } | null = null;

  /**
   * The origin, URL and headers of a request to `path`, worked out once for the pool's many requests
   * (parsing two URLs and merging the headers per request was a visible share of a batch's CPU per
   * prompt); again when the connection's base URL, key or headers were replaced. Read-only: a redirect
   * replaces them rather than changing them, and each request sends a copy of the headers (undici's
   * ProxyAgent adds to the object it is given).
   */
  target(conn: Connection, path: string): RequestTarget {
    const known = this.#target;
    if (known && known.conn === conn && known.path === path && known.baseUrl === conn.baseUrl && known.apiKey === conn.apiKey && known.auth === conn.auth && known.headers === conn.headers) {
      return known.value;
    }
    const value = requestTarget(conn, path);
    this.#target = { conn, baseUrl: conn.baseUrl, apiKey: conn.apiKey, auth: conn.auth, headers: conn.headers, path, value };
    return value;
  }

  close(): void {
    this.dispatchers.destroy();
  }
}

/** Where a request goes and the headers it starts with (before any redirect). */
interface RequestTarget {
  origin: string;
  url: URL;
  headers: Readonly<Record<string, string>>;
}

function requestTarget(conn: Connection, path: string): RequestTarget {
  return { origin: new URL(conn.baseUrl).origin, url: new URL(conn.baseUrl + path), headers: buildHeaders(conn, VERSION) };
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface HttpRequest {
  conn: Connection;
  method: 'GET' | 'POST';
  /** Appended to the base URL, e.g. `/chat/completions`. */
  path: string;
  body?: unknown;
  /**
   * A body too large to hold (a remote batch's input, SPEC §19): produced afresh for every attempt
   * and redirect, so a retry sends it whole again. Replaces `body`.
   */
  upload?: StreamedBody;
  signal?: AbortSignal;
  /** --verbose; receives lines that are already redacted. */
  log?: (line: string) => void;
  onRetry?: (info: RetryInfo) => void;
  /**
   * The response headers come only once the whole answer is generated (--no-stream): the wait for
   * them is longer, and a time-out there is not retried (SPEC §7).
   */
  wholeAnswer?: boolean;
}

export interface StreamedBody {
  contentType: string;
  /** Exact, so the gateway sees a Content-Length rather than a chunked upload. */
  length: number;
  open(): AsyncIterable<Uint8Array>;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Decompressed; throws NetworkError('idle'), StreamInterruptedError or an abort error. Iterate once. */
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  /** Frees the connection without reading the body. */
  close(): void;
  requestId: string | null;
}

const MAX_REDIRECTS = 5;
/** Whole-body reads (non-stream answers); error bodies are read with a much smaller cap. */
export const MAX_TEXT_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_BODY_BYTES = 1024 * 1024;
/** A non-streamed answer may take minutes to generate before its headers: wait at least this long. */
export const WHOLE_ANSWER_HEADERS_MS = 600_000;

/** SPEC §7: the limit on the wait for response headers. */
export function headersTimeoutMs(conn: Connection, wholeAnswer: boolean): number {
  return wholeAnswer ? Math.max(conn.timeouts.headersMs, WHOLE_ANSWER_HEADERS_MS) : conn.timeouts.headersMs;
}
/** Response headers worth a --verbose line. */
const LOGGED_RESPONSE_HEADERS = ['content-type', 'content-encoding', 'x-request-id', 'request-id', 'retry-after', 'retry-after-ms', 'x-should-retry', 'location'];

/** SPEC §5.2: a key over plain http to anything but loopback deserves a warning. */
export function plainHttpWarning(conn: Connection): string | null {
  if (!conn.apiKey) return null;
  const url = new URL(conn.baseUrl);
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `warning: sending your API key over plain http to ${url.hostname}`;
}

type Attempt =
  | { kind: 'response'; status: number; headers: Record<string, string>; raw: ResponseBody }
  | { kind: 'network'; error: NetworkError };

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  // for-in, not Object.entries(): no [name, value] array per header on every response of a batch.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Pre-header failures: the phase decides both the message and whether a retry may help. */
export function preHeaderError(error: unknown, url: URL, conn: Connection, wholeAnswer = false): NetworkError {
  const code = errorCode(error);
  const host = url.host;
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && (error.name === 'HTTPParserError' || (code?.startsWith('HPE_') && code !== 'HPE_HEADER_OVERFLOW'))) {
    // The connection worked; what came back is not HTTP (control characters in a header, a garbled
    // status line). The same gateway answers the same way again: no retry. undici names the reason in
    // brackets at the end of its message; node:http in `reason`.
    const reason = (error as { reason?: unknown }).reason;
    const why = typeof reason === 'string' ? reason : (/\(([^)]*)\)\s*$/.exec(detail)?.[1] ?? detail);
    return new NetworkError('headers', `the response from ${host} is not valid HTTP (${why})`, { cause: error, retryable: false });
  }
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
    case CONNECT_TIMEOUT:
      return new NetworkError('connect', `timed out connecting to ${host} after ${seconds(conn.timeouts.connectMs)} (--connect-timeout)`, { cause: error });
    case 'ECONNREFUSED':
      return new NetworkError('connect', `cannot connect to ${host}: connection refused`, { cause: error, hint: 'is the gateway running? check: gatechat config get base-url' });
    case 'ENOTFOUND':
      // A mistyped host name will not start resolving in two seconds.
      return new NetworkError('connect', `cannot connect to ${host}: host not found`, { cause: error, retryable: false, hint: 'check: gatechat config get base-url' });
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return new NetworkError('connect', `cannot connect to ${host}: ${code}`, { cause: error });
    case 'UND_ERR_HEADERS_TIMEOUT':
    case HEADERS_TIMEOUT:
      if (wholeAnswer) {
        // The gateway may still be generating (and billing) the answer: asking again would pay twice.
        const limit = seconds(headersTimeoutMs(conn, true));
        return new NetworkError('headers', `timed out after ${limit} waiting for the whole answer (--no-stream waits the larger of --timeout and 600 s; not retried)`, {
          cause: error,
          retryable: false,
        });
      }
      return new NetworkError('headers', `timed out waiting for response headers after ${seconds(conn.timeouts.headersMs)} (--timeout)`, { cause: error });
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_CLOSED':
      return new NetworkError('headers', `the connection to ${host} closed before the response headers`, { cause: error });
    case 'UND_ERR_HEADERS_OVERFLOW':
    case 'HPE_HEADER_OVERFLOW':
      // The same gateway sends the same headers again: asking again only delays the message.
      return new NetworkError('headers', `the response headers from ${host} are larger than Node reads (16 KiB unless raised)`, {
        cause: error,
        retryable: false,
        hint: 'raise the limit: NODE_OPTIONS=--max-http-header-size=65536',
      });
    default:
      if (code !== undefined && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/i.test(code)) {
        // Certificate problems are deterministic: retrying only delays the message.
        return new NetworkError('connect', `TLS error connecting to ${host}: ${detail}`, { cause: error, retryable: false });
      }
      return new NetworkError('connect', `cannot connect to ${host}: ${detail}`, { cause: error });
  }
}

/** Failures before the response headers of a request that went through a proxy: name the proxy. */
export function proxyError(error: unknown, url: URL, proxy: string, conn: Connection, wholeAnswer = false): NetworkError {
  const via = proxyLabel(proxy);
  const hint = 'check --proxy, the proxy key or HTTPS_PROXY/HTTP_PROXY (NO_PROXY lists hosts to reach directly)';
  const detail = error instanceof Error ? error.message : String(error);
  const refusedTunnel = /Proxy response \((\d{3})\)/.exec(detail);
  if (refusedTunnel) {
    const status = Number(refusedTunnel[1]);
    const phrase = statusText(status);
    return new NetworkError('connect', `proxy ${via} refused to connect to ${url.host}: HTTP ${status}${phrase ? ` ${phrase}` : ''}`, { cause: error, retryable: false, hint });
  }
  if (/Proxy Authentication Required/i.test(detail)) {
    return new NetworkError('connect', `proxy ${via} refused the request: HTTP 407 Proxy Authentication Required`, {
      cause: error,
      retryable: false,
      hint: 'give the proxy credentials in its URL: http://user:password@proxy:port',
    });
  }
  switch (errorCode(error)) {
    case 'ECONNREFUSED':
      return new NetworkError('connect', `cannot connect to proxy ${via}: connection refused`, { cause: error, hint });
    case 'ENOTFOUND':
      return new NetworkError('connect', `cannot connect to proxy ${via}: host not found`, { cause: error, retryable: false, hint });
    default: {
      const direct = preHeaderError(error, url, conn, wholeAnswer);
      return new NetworkError(direct.phase, `${direct.message} (through proxy ${via})`, { cause: error, retryable: direct.retryable, hint: direct.hint });
    }
  }
}

/** Enough to see what was asked; a long prompt or an attachment is cut (--dry-run prints it all). */
const MAX_LOGGED_BODY_CHARS = 64 * 1024;

function bodyForLog(body: string, secrets: string[]): string {
  // Masked before cutting, so a key on the cut is never shown in part.
  const shown = redactSecrets(body, secrets);
  if (shown.length <= MAX_LOGGED_BODY_CHARS) return shown;
  return `${shown.slice(0, MAX_LOGGED_BODY_CHARS)}… (${Buffer.byteLength(body)} bytes in all; --dry-run prints the whole request)`;
}

function openUpload(upload: StreamedBody | undefined): Readable | undefined {
  return upload && Readable.from(upload.open(), { objectMode: false });
}

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** One attempt, following redirects: resolves at the first non-redirect response headers. */
async function attempt(req: HttpRequest, dispatchers: Dispatchers, payload: string | undefined, secrets: string[]): Promise<Attempt> {
  const { conn, log, signal } = req;
  const target = conn.pool?.target(conn, req.path) ?? requestTarget(conn, req.path);
  const origin = target.origin;
  let url = target.url;
  let method: 'GET' | 'POST' = req.method;
  let body: string | Readable | undefined = payload ?? openUpload(req.upload);
  let headers = { ...target.headers };
  if (req.upload) headers = { ...withoutHeader(headers, 'content-type'), 'Content-Type': req.upload.contentType, 'Content-Length': String(req.upload.length) };
  let credentialsDropped = false;

  for (let hop = 0; ; hop++) {
    if (log) {
      log(`> ${method} ${redactSecrets(url.toString(), secrets)}`);
      for (const [name, value] of Object.entries(redactHeaders(headers, secrets))) log(`> ${name}: ${value}`);
      if (typeof body === 'string') log(`> body: ${bodyForLog(body, secrets)}`);
      else if (body !== undefined) log(`> body: (streamed, ${req.upload?.length} bytes)`);
    }
    const route = dispatchers.known(url) ?? (await dispatchers.route(url, body instanceof Readable));
    if (log && route.proxy !== null) log(`> through proxy ${proxyLabel(route.proxy)}`);
    const started = Date.now();
    let res: RawResponse;
    try {
      // On a shared pool the dispatcher's headers timeout is the streaming one; --no-stream waits longer.
      const headersTimeout = conn.pool ? headersTimeoutMs(conn, req.wholeAnswer === true) : undefined;
      res = await route.send(url, { method, headers, body, signal, headersTimeout });
    } catch (error) {
      if (signal?.aborted) throw new RequestAbortedError();
      // A refused CONNECT surfaces as undici's RequestAbortedError: it is the proxy's answer, not ours.
      if (route.proxy !== null) return { kind: 'network', error: proxyError(error, url, route.proxy, conn, req.wholeAnswer) };
      if (isAbortError(error)) throw new RequestAbortedError();
      return { kind: 'network', error: preHeaderError(error, url, conn, req.wholeAnswer) };
    }
    const resHeaders = flatten(res.headers);
    if (log) {
      const phrase = statusText(res.statusCode);
      log(`< ${res.statusCode}${phrase ? ` ${phrase}` : ''} (${Date.now() - started} ms)`);
      for (const name of LOGGED_RESPONSE_HEADERS) {
        if (resHeaders[name] !== undefined) log(`< ${name}: ${redactSecrets(resHeaders[name], secrets)}`);
      }
    }
    const location = resHeaders.location;
    if (!isRedirect(res.statusCode) || location === undefined) {
      return { kind: 'response', status: res.statusCode, headers: resHeaders, raw: res.body };
    }
    await res.discard().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) {
      throw new GatechatError(`too many redirects (more than ${MAX_REDIRECTS}) from ${origin}`, ExitCode.server);
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new GatechatError(`the gateway redirected to an invalid address: ${JSON.stringify(location)}`, ExitCode.server);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new GatechatError(`the gateway redirected to an unsupported address: ${next.protocol}`, ExitCode.server);
    }
    if (next.origin !== origin && !credentialsDropped) {
      // SPEC §5.2: the key goes only to the configured origin; -H headers may carry secrets too.
      credentialsDropped = true;
      const strip = credentialHeaderNames(conn);
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !strip.has(name.toLowerCase())));
      log?.(`redirected to another origin (${next.origin}): not sending the API key or -H headers there`);
    }
    if (method === 'POST' && res.statusCode !== 307 && res.statusCode !== 308) {
      // 301/302/303 turn a POST into a GET without body, as browsers and curl -L do.
      method = 'GET';
      body = undefined;
      headers = withoutHeader(headers, 'content-length');
    } else if (req.upload && body instanceof Readable) {
      // The stream was (partly) consumed by the hop that redirected: the next hop gets a fresh one.
      body.destroy();
      body = openUpload(req.upload);
    }
    url = next;
  }
}

/**
 * One request with the retry loop (SPEC §7), which runs only before the response headers of a
 * usable answer: once a 2xx is returned nothing here retries.
 */
export async function sendRequest(req: HttpRequest): Promise<HttpResponse> {
  const { conn, signal, log } = req;
  if (signal?.aborted) throw new RequestAbortedError();
  const secrets = conn.pool?.secretsOf(conn) ?? secretsOf(conn);
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  // Dedicated dispatchers unless the caller shares a pool: per-connection timeouts, and destroying
  // them lets the process exit at once.
  const dispatchers = conn.pool?.dispatchers ?? new Dispatchers(conn, headersTimeoutMs(conn, req.wholeAnswer === true));
  let agentClosed = conn.pool !== undefined;
  const closeAgent = (): void => {
    if (agentClosed) return;
    agentClosed = true;
    dispatchers.destroy();
  };
  if (!conn.apiKey && !Object.keys(conn.headers).some((n) => credentialHeaderNames(conn).has(n.toLowerCase()))) {
    log?.('no API key configured: sending no auth header');
  }

  let handedOver = false;
  try {
    for (let retriesDone = 0; ; ) {
      let permit = await enterGate(conn.gate, signal);
      let end: AttemptEnd = { kind: 'failed' };
      let requeued = false;
      let status: number | undefined;
      let resHeaders: Record<string, string> | undefined;
      let bodyText = '';
      let result: Attempt;
      try {
        result = await attempt(req, dispatchers, payload, secrets);
        if (result.kind === 'response') {
          if (result.status >= 200 && result.status < 300) {
            handedOver = true;
            const leave = permit;
            permit = null;
            return answer(result, conn, signal, () => {
              leave?.leave({ kind: 'ok' });
              closeAgent();
            });
          }
          status = result.status;
          resHeaders = result.headers;
          end = rateLimitEnd(status, resHeaders) ?? end;
          const ctx = { idleMs: conn.timeouts.idleMs, signal, onDone: () => undefined };
          bodyText = await readText(bodyChunks(result.raw, resHeaders['content-encoding'], ctx), MAX_ERROR_BODY_BYTES).catch((error: unknown) => {
            if (isAbortError(error)) throw error;
            return ''; // the status alone still says what happened
          });
          // The error line holds the gateway's message in short; -v shows everything it said.
          if (log && bodyText !== '') log(`< body: ${redactSecrets(bodyText, secrets)}`);
        }
      } finally {
        requeued = permit?.leave(end) === true && end.kind === 'rate_limited';
      }
      const finalError = (extra?: string): Error =>
        result.kind === 'network' ? result.error : httpErrorFrom(status!, resHeaders!, bodyText, secrets, extra, endpointInBaseUrlHint(conn.baseUrl));
      const retryable =
        result.kind === 'network'
          ? result.error.retryable && shouldRetry({ networkPhase: result.error.phase === 'connect' ? 'connect' : 'headers' })
          : shouldRetry({ status, headers: resHeaders });
      if (!retryable || (retriesDone >= conn.retries && !requeued)) throw finalError();
      const delay = retryDelayMs(retriesDone + 1, resHeaders, Math.random);
      if ('refuse' in delay) throw finalError(delay.refuse);
      if (requeued) {
        // The gate holds every attempt for the advised wait: queueing again is the whole wait.
        log?.(`HTTP ${status} from the gateway: queued again behind the lowered concurrency (not counted as a retry)`);
        continue;
      }
      retriesDone++;
      const reason = result.kind === 'network' ? result.error.message : `HTTP ${status} from the gateway`;
      // The caller shows retries to the user; the verbose log only needs them when nobody does.
      if (req.onRetry) req.onRetry({ attempt: retriesDone, delayMs: delay.delayMs, reason });
      else log?.(`${reason}: retry ${retriesDone} of ${conn.retries} in ${delay.delayMs} ms`);
      try {
        await sleep(delay.delayMs, undefined, { signal });
      } catch {
        throw new RequestAbortedError();
      }
    }
  } finally {
    if (!handedOver) closeAgent();
  }
}

async function enterGate(gate: AttemptGate | undefined, signal: AbortSignal | undefined): Promise<AttemptPermit | null> {
  if (!gate) return null;
  try {
    return await gate.enter(signal);
  } catch (error) {
    if (signal?.aborted || isAbortError(error)) throw new RequestAbortedError();
    throw error;
  }
}

/** Overloaded: a 503 (OpenAI-style gateways) or Anthropic's 529 says "too many", as a 429 does. */
const SLOW_DOWN_STATUSES = new Set([429, 503, 529]);

/** A 429, an overloaded gateway, or any refusal that names a wait asks every request to slow down. */
function rateLimitEnd(status: number, headers: Record<string, string>): AttemptEnd | null {
  const waitMs = requestedWaitMs(headers);
  if (!SLOW_DOWN_STATUSES.has(status) && waitMs === null) return null;
  return { kind: 'rate_limited', waitMs };
}

function answer(
  result: Extract<Attempt, { kind: 'response' }>,
  conn: Connection,
  signal: AbortSignal | undefined,
  closeAgent: () => void,
): HttpResponse {
  const body = bodyChunks(result.raw, result.headers['content-encoding'], { idleMs: conn.timeouts.idleMs, signal, onDone: closeAgent });
  return {
    status: result.status,
    headers: result.headers,
    body,
    text: () => readText(body, MAX_TEXT_BYTES),
    close: () => {
      void body.return(undefined);
      result.raw.destroy();
      closeAgent();
    },
    requestId: requestIdFrom(result.headers),
  };
}
