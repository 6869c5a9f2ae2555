import type { Api, ChatEvent, RequestOptions } from './events.js';
import type { ProtocolDecoder } from './decoder-support.js';
import { buildMessagesRequest, createMessagesDecoder, parseMessagesResponse } from './anthropic-messages.js';
import { buildChatRequest, createChatDecoder, parseChatResponse } from './openai-chat.js';

export type { ProtocolDecoder } from './decoder-support.js';

export interface Protocol {
  path: '/chat/completions' | '/messages';
  buildRequest(opts: RequestOptions): Record<string, unknown>;
  createDecoder(): ProtocolDecoder;
  parseResponse(body: unknown): ChatEvent[];
}

const CHAT: Protocol = {
  path: '/chat/completions',
  buildRequest: buildChatRequest,
  createDecoder: createChatDecoder,
  parseResponse: parseChatResponse,
};

const MESSAGES: Protocol = {
  path: '/messages',
  buildRequest: buildMessagesRequest,
  createDecoder: createMessagesDecoder,
  parseResponse: parseMessagesResponse,
};

export function protocolFor(api: Api): Protocol {
  switch (api) {
    case 'chat':
      return CHAT;
    case 'messages':
      return MESSAGES;
    default: {
      const never: never = api;
      return never;
    }
  }
}
