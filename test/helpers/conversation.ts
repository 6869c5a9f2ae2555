import type { ConversationDeps } from '../../src/session/conversation.js';
import type { ConversationStore } from '../../src/session/conversation-store.js';

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
