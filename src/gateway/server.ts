/**
 * The embedded dev gateway (SPEC §9): both interfaces in exact wire format over node:http, with
 * deterministic and fault models, a request log for tests, and a close() that never hangs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomId } from './answer.js';
import { BatchStore, MAX_UPLOAD_BYTES } from './batches.js';
import { handleCompletion } from './completion.js';
import { sendReply } from './engine.js';
import { errorReply, type ErrorReply, type FlakyCounters } from './faults.js';
import { hostAllowed } from './host-check.js';
import { LISTED_MODELS, parseModel } from './models.js';
import { LISTED_PRICING } from './billing.js';
import { RequestLog } from './request-log.js';
import { PromptCache } from './prompt-cache.js';
import type { Api, GatewayOptions, GatewayStats, RecordedRequest, RunningGateway } from './types.js';

export type { GatewayOptions, GatewayStats, RecordedRequest, RunningGateway } from './types.js';

// Real requests are at most a few MiB (the client caps stdin at 8 MiB); beyond this is a bug.
const MAX_BODY_BYTES = 32 * 1024 * 1024;
// A fixed date keeps GET /v1/models byte-identical between runs.
const MODELS_CREATED = 1_735_689_600;
const CONTROL_PATH = '/__gatechat/requests';
const STATS_PATH = '/__gatechat/stats';

type Route = { kind: 'completion'; api: Api } | { kind: 'batch' } | { kind: 'models' } | { kind: 'control' } | { kind: 'stats' } | { kind: 'unknown' };

function routeOf(path: string): Route {
  switch (path) {
    case '/v1/chat/completions':
      return { kind: 'completion', api: 'chat' };
    case '/v1/messages':
      return { kind: 'completion', api: 'messages' };
    case '/v1/models':
      return { kind: 'models' };
    case CONTROL_PATH:
      return { kind: 'control' };
    case STATS_PATH:
      return { kind: 'stats' };
    default:
      return BatchStore.owns(path) ? { kind: 'batch' } : { kind: 'unknown' };
  }
}

function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function authorized(req: IncomingMessage, apiKey: string): boolean {
  const bearer = String(req.headers.authorization ?? '').match(/^Bearer\s+(.+)$/i);
  return (bearer !== null && bearer[1].trim() === apiKey) || req.headers['x-api-key'] === apiKey;
}

function authFailure(api: Api, req: IncomingMessage): ErrorReply {
  const sent = req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined;
  const message = sent
    ? 'gatechat dev gateway: invalid API key (it was started with --api-key; send that key as Authorization: Bearer or x-api-key)'
    : 'gatechat dev gateway: missing API key (it was started with --api-key; send it as Authorization: Bearer or x-api-key)';
  return errorReply(api, 401, message, { code: 'invalid_api_key' });
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): ErrorReply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

export async function startGateway(opts: GatewayOptions = {}): Promise<RunningGateway> {
  const log = new RequestLog();
  const requests = log.entries;
  const listenHost = opts.host ?? '127.0.0.1';
  let port = 0; // known once listening, before the first request
  const flaky: FlakyCounters = new Map();
  const batches = new BatchStore(flaky);
  const promptCache = new PromptCache();
  // Completion requests being answered, and the most at once since the last reset (batch tests
  // check that a client backs off: the gateway's own count is the ground truth).
  const load = { inFlight: 0, peak: 0, connections: 0 };
  const stats = (): GatewayStats => ({ in_flight: load.inFlight, peak_in_flight: load.peak, requests: requests.length, connections: load.connections });

  async function handle(req: IncomingMessage, res: ServerResponse, route: Route, path: string, meta: { model: string | null }): Promise<void> {
    const method = req.method ?? 'GET';
    const requestId = randomId('req_');
    const idHeaders = { 'x-request-id': requestId, 'request-id': requestId };
    const api: Api = route.kind === 'completion' ? route.api : path.startsWith('/v1/messages') ? 'messages' : 'chat';
    // Refused before anything is read or stored: a page rebinding its name to this address, a client
    // without the key (every route needs it, the request log most of all: it holds every prompt).
    if (!hostAllowed(req.headers.host, listenHost, port)) {
      req.resume();
      sendReply(res, errorReply(api, 421, `gatechat dev gateway: Host ${JSON.stringify(req.headers.host ?? '')} does not name the address it listens on (use 127.0.0.1:${port} or localhost:${port})`, { code: 'misdirected_request' }));
      return;
    }
    if (opts.apiKey !== undefined && !authorized(req, opts.apiKey)) {
      req.resume();
      const refused = authFailure(api, req);
      sendReply(res, { ...refused, headers: { ...refused.headers, ...idHeaders } });
      return;
    }
    if (route.kind === 'control') {
      if (method === 'GET') sendReply(res, json(200, log.served()));
      else if (method === 'DELETE') {
        const deleted = log.clear();
        flaky.clear();
        promptCache.clear();
        load.peak = load.inFlight;
        sendReply(res, json(200, { deleted }));
      } else sendReply(res, json(405, { error: { message: `${method} ${path} is not supported`, type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    if (route.kind === 'stats') {
      sendReply(res, method === 'GET' ? json(200, stats()) : json(405, { error: { message: `${method} ${path} is not supported; use GET`, type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    // Batch input files are bigger than any one request: up to the vendors' 200 MB and a little more.
    const raw = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : await readBody(req, route.kind === 'batch' ? MAX_UPLOAD_BYTES : MAX_BODY_BYTES);
    let body: unknown = null;
    let parsed = true;
    if (raw && raw.length > 0) {
      const text = raw.toString('utf8');
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        parsed = false;
      }
    }
    const model = body && typeof body === 'object' && typeof (body as Record<string, unknown>).model === 'string' ? ((body as Record<string, unknown>).model as string) : null;
    meta.model = model;
    const inFlight = route.kind === 'completion' ? enter(res) : undefined;
    log.add({ method, path, headers: { ...req.headers }, body, model, ...(inFlight !== undefined ? { in_flight: inFlight } : {}) }, raw?.length ?? 0);

    const reply = (r: ErrorReply) => sendReply(res, { ...r, headers: { ...r.headers, ...idHeaders } });
    if (route.kind === 'batch') {
      reply(batches.handle(method, path, raw, String(req.headers['content-type'] ?? ''), req.headers.host ?? `127.0.0.1:${port}`));
      return;
    }
    if (route.kind === 'unknown') {
      reply(errorReply('chat', 404, `gatechat dev gateway: unknown path ${method} ${path} (try /v1/chat/completions, /v1/messages, /v1/models)`, { code: 'not_found' }));
      return;
    }
    const expected = route.kind === 'models' ? 'GET' : 'POST';
    if (method !== expected) {
      reply(errorReply(api, 405, `gatechat dev gateway: ${method} ${path} is not supported; use ${expected}`, { code: 'method_not_allowed', headers: { allow: expected } }));
      return;
    }
    if (route.kind === 'models') {
      reply(json(200, { object: 'list', data: LISTED_MODELS.map((id) => ({ id, object: 'model', created: MODELS_CREATED, owned_by: 'gatechat-dev', ...listedContext(id), pricing: LISTED_PRICING })) }));
      return;
    }
    if (raw === null) {
      reply(errorReply(api, 413, `gatechat dev gateway: request body over ${MAX_BODY_BYTES} bytes`));
      return;
    }
    if (!parsed || !body || typeof body !== 'object' || Array.isArray(body)) {
      const message = parsed ? 'request body must be a JSON object' : 'We could not parse the JSON body of your request. (The body is not valid JSON.)';
      reply(errorReply(api, 400, message, { code: 'invalid_json' }));
      return;
    }
    const controller = new AbortController();
    res.once('close', () => controller.abort());
    await handleCompletion({ api, body: body as Record<string, unknown>, req, res, flaky, inFlight: load.inFlight, signal: controller.signal, headers: idHeaders, promptCache });
  }

  /** Counts a completion request in flight until its response closes; returns the count with it. */
  function enter(res: ServerResponse): number {
    load.inFlight++;
    load.peak = Math.max(load.peak, load.inFlight);
    res.once('close', () => load.inFlight--);
    return load.inFlight;
  }

  const server = createServer((req, res) => {
    const started = Date.now();
    const path = (req.url ?? '/').split('?')[0];
    const route = routeOf(path);
    const meta = { model: null as string | null };
    res.once('close', () => {
      if (route.kind === 'control' || route.kind === 'stats') return;
      // Never the key: method, path, model, status and time only.
      opts.log?.(`${req.method} ${path} ${meta.model ?? '-'} ${res.statusCode}${res.writableFinished ? '' : ' (closed early)'} ${Date.now() - started}ms`);
    });
    handle(req, res, route, path, meta).catch((error: unknown) => {
      if (!res.headersSent) sendReply(res, errorReply('chat', 500, `gatechat dev gateway: internal error: ${(error as Error).message}`));
      else res.destroy();
    });
  });
  server.on('connection', () => {
    load.connections++;
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  port = address.port;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    requests,
    stats,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Stalled and slow responses would keep close() waiting forever: end them now.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** context-N tells its window the way OpenRouter's list does (`context_length`), so `gatechat models` caches it. */
function listedContext(id: string): { context_length?: number } {
  const spec = parseModel(id);
  return spec?.behaviour.kind === 'context' ? { context_length: spec.behaviour.window } : {};
}
