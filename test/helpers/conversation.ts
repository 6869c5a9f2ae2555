import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import type { ConversationDeps } from '../../src/session/conversation.js';
import type { ChatEvent } from '../../src/protocol/events.js';
import type { TurnOutcome } from '../../src/session/types.js';
import { ConversationStore, type AssistantInput } from '../../src/session/conversation-store.js';

export interface GatewayAndStore {
  gateway: RunningGateway;
  dir: string;
  store: ConversationStore;
}

/**
 * One in-process dev gateway for the test file, and a fresh store in a temp dir (removed after) for
 * each test, the gateway's request log emptied: `use` receives them before every test.
 */
export function useGatewayAndStore(prefix: string, use: (made: GatewayAndStore) => void): void {
  let gateway: RunningGateway;
  let dir = '';
  beforeAll(async () => {
    gateway = await startGateway({ port: 0 });
  });
  afterAll(() => gateway.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    gateway.requests.length = 0;
    use({ gateway, dir, store: new ConversationStore(dir) });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
}

/**
 * What a test's Conversation needs to talk to an in-process dev gateway and record into `store`:
 * Chat Completions, streamed, no retries, short timeouts. `extra` adds or replaces any of it.
 */
export function conversationDeps(gatewayUrl: string, store: ConversationStore, model: string, extra: Partial<ConversationDeps> = {}): ConversationDeps {
  return {
    conn: {
      baseUrl: `${gatewayUrl}/v1`,
      auth: 'bearer',
      headers: {},
      timeouts: { connectMs: 2000, headersMs: 5000, idleMs: 5000 },
      retries: 0,
    },
    settings: { model, api: 'chat', stream: true },
    maxTokensField: 'max_tokens',
    store,
    record: true,
    ...extra,
  };
}

/** A complete saved answer, as the store records one: `extra` changes any field (model, api, usage, ts…). */
export function savedAnswer(content: string, extra: Partial<AssistantInput> = {}): AssistantInput {
  return {
    content,
    reasoning: null,
    tool_calls: [],
    status: 'complete',
    finish_reason: 'stop',
    raw_finish_reason: 'stop',
    usage: { input_tokens: 1, output_tokens: 1 },
    model: 'echo',
    api: 'chat',
    params: { stream: true },
    timings: { first_token_ms: 1, total_ms: 2 },
    ...extra,
  };
}

/** Runs a turn's events to the end (each to `onEvent`) and returns its outcome; no turn at all fails the test. */
export async function drainTurn(events: AsyncGenerator<ChatEvent, TurnOutcome, void> | null | undefined, onEvent?: (e: ChatEvent) => void): Promise<TurnOutcome> {
  if (!events) throw new Error('no turn');
  while (true) {
    const step = await events.next();
    if (step.done) return step.value;
    onEvent?.(step.value);
  }
}
