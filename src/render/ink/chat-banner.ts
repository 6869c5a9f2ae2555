import type { Conversation } from '../../session/types.js';

/**
 * The chat's first line: version, model, interface and how to get help or leave. Printed at start and
 * again when /clear starts a new conversation, so it is one function both share.
 */
export function chatBanner(conversation: Conversation, version: string): string {
  const resumed = conversation.cid ? ` · continuing ${conversation.cid}` : '';
  return `gatechat ${version} · ${conversation.settings.model} · ${conversation.settings.api}${resumed} · /help for commands · Ctrl-D exits`;
}

/**
 * The line printed on leaving a saved chat: what it holds and how to come back to it (SPEC §8). `-c`
 * resumes the newest conversation, which this one is unless another chat was saved since.
 */
export function leavingLine(conversation: Conversation): string | null {
  const turns = conversation.turns;
  if (!conversation.cid || turns.length === 0) return null;
  const sum = (field: 'input_tokens' | 'output_tokens') => turns.reduce((n, t) => n + (t.result.usage[field] ?? 0), 0);
  const count = `${turns.length} turn${turns.length === 1 ? '' : 's'}`;
  return `${count} · in ${sum('input_tokens')} / out ${sum('output_tokens')} tokens · resume: gatechat -c or gatechat --cid ${conversation.cid}`;
}
