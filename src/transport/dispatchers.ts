import type { Dispatcher } from 'undici';
import { clientFor, DirectClient, type RawResponse } from './direct-request.js';
import { proxyFor } from './proxy-url.js';
import { tuneV8ForStreaming } from './v8-flags.js';
import type { Connection } from './http.js';
import type { UndiciSendOptions } from './undici-route.js';

export interface Route {
  send(url: URL, options: UndiciSendOptions): Promise<RawResponse>;
  /** The proxy this target goes through, or null when direct. */
  proxy: string | null;
}

/**
 * How the requests of one caller reach the gateway: a single request without a proxy goes through
 * node:http (`direct-request.ts`); a shared keep-alive pool, a proxy (one ProxyAgent per proxy: a
 * redirect may lead to a host that NO_PROXY treats differently) or a streamed body through undici,
 * loaded on first use. destroy() lets the process exit at once.
 */
export class Dispatchers {
  private readonly made = new Map<string, Dispatcher>();
  private direct: DirectClient | undefined;
  /**
   * A shared pool's routes by origin: a batch asks for the same one thousands of times, and reading
   * the proxy variables from process.env on every request was a visible share of its CPU per prompt.
   * The environment is the one the run started with.
   */
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly conn: Connection,
    /** Longer than conn.timeouts.headersMs for a whole (non-streamed) answer. */
    private readonly headersMs: number,
    /** Many requests share these (batch, a tool loop): undici's keep-alive pool even when direct. */
    private readonly pooled = false,
  ) {}

  /** A shared pool's route already made for this origin, without waiting a turn for route(); else undefined. */
  known(target: URL): Route | undefined {
    return this.pooled ? this.routes.get(routeKey(target)) : undefined;
  }

  private readonly whenWritten = (): void => {
    this.conn.onRequestWritten?.();
    tuneV8ForStreaming();
  };

  async route(target: URL, streamedBody: boolean): Promise<Route> {
    if (!this.pooled) return this.newRoute(target, streamedBody);
    const key = routeKey(target);
    let route = this.routes.get(key);
    if (!route) {
      route = await this.newRoute(target, streamedBody);
      // Bounded: redirects could name any number of hosts.
      if (this.routes.size >= 64) this.routes.clear();
      this.routes.set(key, route);
    }
    return route;
  }

  private async newRoute(target: URL, streamedBody: boolean): Promise<Route> {
    const proxy = proxyFor(target, this.conn.proxy, process.env);
    const direct = proxy === null && !this.pooled && !streamedBody;
    // node:http and its _http_* modules load before the flags change, so from Node's own code cache for
    // built-ins (src/transport/v8-flags.ts says why a built-in loaded after it is compiled from source).
    if (direct) clientFor(target.protocol);
    const timeouts = { ...this.conn.timeouts, headersMs: this.headersMs };
    if (direct) {
      const direct = (this.direct ??= new DirectClient(timeouts));
      return {
        proxy,
        // node:http has no WebAssembly to compile: the flags (and node:v8, and a first run's code cache)
        // wait until the connection is up and the request written, in the time the gateway takes to
        // answer. Set earlier (an immediate after send), they came before the connect and held back the
        // request's write by their ~0.5–2 ms.
        // The caller's work first: it may load a built-in (a file stdout's stream), which after the flags
        // change would be compiled without Node's code cache.
        send: (url, { headersTimeout: _, body, ...options }) => direct.send(url, { ...options, body: body as string | undefined, onWritten: this.whenWritten }),
      };
    }
    tuneV8ForStreaming();
    const undici = await import('./undici-route.js');
    const key = proxy ?? '';
    let dispatcher = this.made.get(key);
    if (!dispatcher) {
      dispatcher = proxy === null ? undici.directAgent(timeouts) : await undici.proxyAgent(proxy, timeouts);
      this.made.set(key, dispatcher);
    }
    const chosen = dispatcher;
    return { proxy, send: (url, options) => undici.sendThrough(chosen, url, options) };
  }

  destroy(): void {
    this.direct?.destroyAll();
    for (const dispatcher of this.made.values()) dispatcher.destroy().catch(() => undefined);
    this.made.clear();
    this.routes.clear();
  }
}

/** A shared pool's routes are per scheme and host (with its port). */
const routeKey = (target: URL): string => `${target.protocol}//${target.host}`;
