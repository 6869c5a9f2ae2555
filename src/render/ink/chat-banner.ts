import type { Conversation } from '../../session/types.js';

/**
 * The chat's first line: version, model, interface and how to get help or leave. Printed at start and
 * again when /clear starts a new conversation, so it is one function both share.
 */
export function chatBanner(conversation: Conversation, version: string): string {
  const resumed = conversation.cid ? ` · continuing ${conversation.cid}` : '';
  return `gatechat ${version} · ${conversation.settings.model} · ${conversation.settings.api}${resumed} · /help for commands · Ctrl-D exits`;
}
