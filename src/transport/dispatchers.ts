import type { Dispatcher } from 'undici';
import { Agent } from './undici-core.js';
import { proxyFor } from './proxy-url.js';
import { tuneV8ForStreaming } from './v8-flags.js';
import type { Connection } from './http.js';

export interface Route {
  dispatcher: Dispatcher;
  /** The proxy this target goes through, or null when direct. */
  proxy: string | null;
}

/**
 * The dispatchers of one request: a direct Agent and one ProxyAgent per proxy, made on first use (a
 * redirect may lead to a host that NO_PROXY treats differently). destroy() lets the process exit at once.
 */
export class Dispatchers {
  private readonly made = new Map<string, Dispatcher>();

  constructor(
    private readonly conn: Connection,
    /** Longer than conn.timeouts.headersMs for a whole (non-streamed) answer. */
    private readonly headersMs: number,
  ) {}

  async route(target: URL): Promise<Route> {
    const proxy = proxyFor(target, this.conn.proxy, process.env);
    const key = proxy ?? '';
    let dispatcher = this.made.get(key);
    if (!dispatcher) {
      tuneV8ForStreaming();
      const { connectMs, idleMs } = this.conn.timeouts;
      const { headersMs } = this;
      if (proxy === null) {
        dispatcher = new Agent({ connect: { timeout: connectMs }, headersTimeout: headersMs, bodyTimeout: idleMs });
      } else {
        const { createProxyAgent } = await import('./undici-proxy.js');
        dispatcher = createProxyAgent(proxy, { connectMs, headersMs, bodyMs: idleMs });
      }
      this.made.set(key, dispatcher);
    }
    return { dispatcher, proxy };
  }

  destroy(): void {
    for (const dispatcher of this.made.values()) dispatcher.destroy().catch(() => undefined);
    this.made.clear();
  }
}
