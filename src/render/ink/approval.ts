import { sanitizeForTerminal } from '../terminal-text.js';

/** The keys a tool call's approval takes (SPEC §15): run once, allow for the session, deny, cancel the turn. */
export type ApprovalKey = 'y' | 'a' | 'n' | 'esc';

/** What a view lends the tool loop: a question about one call, and a line above the live region. */
export interface ToolViewHooks {
  ask(call: { name: string; arguments: unknown }, source: string): Promise<ApprovalKey>;
  say(line: string): void;
}

/** The one line a view shows while a call waits: tool, source, arguments (long ones cut) and the keys. */
export function approvalPrompt(call: { name: string; arguments: unknown }, source: string): string {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  const shown = args.length > 200 ? `${args.slice(0, 200)}…` : args;
  return sanitizeForTerminal(`⚙ ${call.name} (${source}) ${shown} — y run once · a allow for this session · n deny · Esc cancel`);
}

/** The key an approval takes from decoded input, or null for a key it ignores (Ctrl-C is the caller's). */
export function approvalKeyOf(key: { kind: string; text?: string }): ApprovalKey | null {
  if (key.kind === 'escape') return 'esc';
  if (key.kind === 'text' && key.text !== undefined && /^[yan]$/i.test(key.text)) return key.text.toLowerCase() as ApprovalKey;
  return null;
}
