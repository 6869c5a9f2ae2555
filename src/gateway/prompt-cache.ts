/**
 * The dev gateway's prompt cache (SPEC §16), so `--cache` shows its saving offline. As Anthropic's: the
 * prefix of a request (model, tools, then system and messages block by block) up to each `cache_control`
 * breakpoint is remembered for 5 minutes, refreshed on every hit. A later request whose prefix matches one
 * at any block boundary up to its own last breakpoint reads those tokens from the cache; the rest up to
 * that breakpoint is written. The markers are not part of the prefix (a breakpoint may move on); a string
 * content counts as the one text block it stands for. Tokens are the gateway's words (`inputWords`).
 */
import { createHash } from 'node:crypto';
import { contentText, countWords } from './text.js';
import type { Answer } from './types.js';

export const CACHE_TTL_MS = 5 * 60_000;
/** Prefixes remembered at most; the oldest go first (a long-running `serve` must not grow without bound). */
const MAX_PREFIXES = 10_000;

export interface CacheCounts {
  read: number;
  write: number;
}

interface Boundary {
  digest: string;
  /** Input tokens up to and including this block. */
  tokens: number;
  marked: boolean;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A message's (or Messages `system`'s) content as blocks: a string is one text block. */
function blocksOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map(asRecord).filter((b): b is Record<string, unknown> => b !== null);
}

/** Every block boundary of the request in prefix order, with the digest of the prefix ending there. */
function boundaries(body: Record<string, unknown>): Boundary[] {
  let digest = createHash('sha256').update(JSON.stringify([body.model, body.tools ?? null])).digest('hex');
  let tokens = 0;
  const out: Boundary[] = [];
  const add = (role: unknown, block: Record<string, unknown>): void => {
    const { cache_control: marker, ...rest } = block;
    digest = createHash('sha256').update(digest).update(JSON.stringify([role, rest])).digest('hex');
    tokens += countWords(contentText([rest]));
    out.push({ digest, tokens, marked: marker !== undefined && marker !== null });
  };
  if (body.system !== undefined) for (const block of blocksOf(body.system)) add('system', block);
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const m = asRecord(message);
    if (m) for (const block of blocksOf(m.content)) add(m.role, block);
  }
  return out;
}

export class PromptCache {
  /** Prefix digest → when it expires. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** What the request reads from and writes to the cache; null for a request without a breakpoint. */
  account(body: Record<string, unknown>): CacheCounts | null {
    const all = boundaries(body);
    const last = all.findLastIndex((b) => b.marked);
    if (last < 0) return null;
    const now = this.now();
    let hit = -1;
    for (let i = last; i >= 0 && hit < 0; i--) if ((this.seen.get(all[i].digest) ?? 0) > now) hit = i;
    const read = hit < 0 ? 0 : all[hit].tokens;
    for (const [i, b] of all.entries()) if (i === hit || (i <= last && b.marked)) this.remember(b.digest, now + CACHE_TTL_MS);
    return { read, write: all[last].tokens - read };
  }

  clear(): void {
    this.seen.clear();
  }

  private remember(digest: string, expires: number): void {
    // Deleted first so the Map's order stays the order of last use.
    this.seen.delete(digest);
    this.seen.set(digest, expires);
    if (this.seen.size > MAX_PREFIXES) this.seen.delete(this.seen.keys().next().value!);
  }
}

/** The answer with the cache's counts (capped at its input: context-N counts input its own way). */
export function withCacheCounts(answer: Answer, counts: CacheCounts | null): Answer {
  if (counts === null) return answer;
  const read = Math.min(counts.read, answer.inputTokens);
  return { ...answer, cacheReadTokens: read, cacheWriteTokens: Math.min(counts.write, answer.inputTokens - read) };
}
