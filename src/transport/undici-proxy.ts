// undici's ProxyAgent, loaded only when a request goes through a proxy (a separate chunk): it brings
// Pool, the CONNECT client and SOCKS support, which nobody without a proxy should pay for at start-up.
import type { Dispatcher, ProxyAgent as ProxyAgentType } from 'undici';
// @ts-expect-error -- internal CommonJS module without type declarations; the public types are applied below
import ProxyAgentImpl from 'undici/lib/dispatcher/proxy-agent.js';
// @ts-expect-error -- internal CommonJS module without type declarations
import PoolImpl from 'undici/lib/dispatcher/pool.js';
// @ts-expect-error -- internal CommonJS module without type declarations
import apiConnect from 'undici/lib/api/api-connect.js';

const ProxyAgent = ProxyAgentImpl as typeof ProxyAgentType;
const Pool = PoolImpl as new (origin: string | URL, options: object) => Dispatcher;

export interface ProxyTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

/**
 * https:// targets go through a CONNECT tunnel; http:// targets are forwarded in absolute form
 * (`POST http://host/v1/… HTTP/1.1`), as curl does and as proxies allow (many permit CONNECT to 443 only).
 * Every hop gets gatechat's timeouts: ProxyAgent would otherwise use undici's defaults for the pools
 * it makes itself.
 */
export function createProxyAgent(proxyUrl: string, timeouts: ProxyTimeouts): Dispatcher {
  const { connectMs, headersMs, bodyMs } = timeouts;
  return new ProxyAgent({
    uri: proxyUrl,
    proxyTunnel: false,
    headersTimeout: headersMs,
    bodyTimeout: bodyMs,
    proxyTls: { timeout: connectMs },
    requestTls: { timeout: connectMs },
    // undici's index gives every dispatcher `.connect()`; without the index, the pool that sends
    // CONNECT to the proxy gets it here.
    clientFactory: (origin: URL, options: object) => Object.assign(new Pool(origin, options), { connect: apiConnect as unknown }),
    factory: (origin: string | URL, options: object) => new Pool(origin, { headersTimeout: headersMs, bodyTimeout: bodyMs, ...options }),
  } as ProxyAgentType.Options);
}
