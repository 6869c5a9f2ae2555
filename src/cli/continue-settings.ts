import type { ToolDefinition } from '../protocol/events.js';
import type { Settings } from '../config/settings.js';
import type { SavedSettings } from '../session/conversation-store.js';
import type { ChatFlags } from './flags.js';

/**
 * -c / --cid continue with the conversation's own settings unless the command line gives them
 * again (SPEC §6): they go in as flags the user did not type, below the ones they did, and so above
 * the environment, model entries, profile and config. Options: see keepConversationValues.
 */
export function continuedFlags(flags: ChatFlags, saved: SavedSettings | undefined): ChatFlags {
  if (!saved) return flags;
  const carried: ChatFlags = { api: saved.api };
  if (saved.model) carried.model = saved.model;
  if (typeof saved.system === 'string') carried.system = saved.system;
  if (typeof saved.temperature === 'number') carried.temperature = saved.temperature;
  if (typeof saved.max_tokens === 'number') carried.maxTokens = saved.max_tokens;
  return { ...carried, ...flags };
}

/**
 * What the conversation said was none (no temperature: the model's default; no system prompt) stays
 * none, and its options stay exactly its options: config and model entries fill in only what the
 * conversation never recorded. `typed` are the flags the user gave.
 */
export function keepConversationValues(settings: Settings, typed: ChatFlags, saved: SavedSettings | undefined): Settings {
  if (!saved) return settings;
  const out = { ...settings };
  if (saved.temperature === null && typed.temperature === undefined) out.temperature = undefined;
  if (saved.max_tokens === null && typed.maxTokens === undefined) out.maxTokens = undefined;
  if (saved.system === null && typed.system === undefined) out.system = undefined;
  if (saved.options !== undefined) {
    const fields = { ...saved.options, ...typed.extraBody };
    out.extraBody = Object.keys(fields).length > 0 ? fields : undefined;
  }
  return out;
}

export function continuedTools(tools: ToolDefinition[] | undefined, saved: SavedSettings | undefined): ToolDefinition[] | undefined {
  return tools ?? saved?.tools ?? undefined;
}
