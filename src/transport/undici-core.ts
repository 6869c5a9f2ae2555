// undici's index pulls in fetch, WebSocket, caches and mocks (~1 MB bundled, ~60 ms and ~9 MiB on
// every start). gatechat needs only an Agent and `request`, so it imports those two modules directly;
// this is what undici's own index wires together (`Dispatcher.prototype.request = api.request`).
import type { Agent as AgentType, Dispatcher } from 'undici';
// @ts-expect-error -- internal CommonJS module without type declarations; the public types are applied below
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error -- internal CommonJS module without type declarations
import apiRequest from 'undici/lib/api/api-request.js';

export const Agent = AgentImpl as typeof AgentType;
export type Agent = AgentType;

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher };

/** undici's `request(url, opts)` for an explicit dispatcher. */
export function request(url: URL, { dispatcher, ...options }: RequestOptions): Promise<Dispatcher.ResponseData> {
  return (apiRequest as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>).call(dispatcher, {
    ...options,
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
  });
}
