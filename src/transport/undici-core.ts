// undici's index pulls in fetch, WebSocket, caches and mocks (~1 MB bundled, ~60 ms and ~9 MiB on
// every start). gatechat needs only an Agent, whose `dispatch()` it drives itself (`undici-dispatch.ts`),
// so it imports that one module directly.
import type { Agent as AgentType } from 'undici';
// @ts-expect-error -- internal CommonJS module without type declarations; the public types are applied below
import AgentImpl from 'undici/lib/dispatcher/agent.js';

export const Agent = AgentImpl as typeof AgentType;
export type Agent = AgentType;
