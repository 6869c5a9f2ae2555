/**
 * The dev gateway's model names. Parameters live in the name (`lorem-200`, `slow-80`,
 * `drop-after-5`), like the knobs of a test double, so any client can reach every behaviour
 * with nothing but `-m`. See docs/dev-gateway.md for the table.
 */

import { parseBillingSuffixes, type BillingSpec } from './billing.js';

export type CutMode = 'drop' | 'stall' | 'eof';

export type Behaviour =
  | { kind: 'echo' }
  | { kind: 'lorem'; words: number }
  | { kind: 'big'; mib: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'think' }
  | { kind: 'tool' }
  | { kind: 'agent'; steps: number }
  | { kind: 'json'; bad: boolean }
  | { kind: 'max-completion-tokens' }
  | { kind: 'max-tokens-required' }
  | { kind: 'context'; window: number }
  | { kind: 'fail'; status: number; retryAfter: string | null; retryAfterMs: string | null; noRetry: boolean }
  | { kind: 'html-502' }
  | { kind: 'cut'; after: number; mode: CutMode }
  | { kind: 'no-done' }
  | { kind: 'error-event' }
  | { kind: 'error-chunk' }
  | { kind: 'keepalive'; seconds: number }
  | { kind: 'flaky'; failures: number }
  | { kind: 'busy'; limit: number };

export interface ModelSpec {
  /** The name exactly as requested (flaky counters and the response `model` use it). */
  name: string;
  behaviour: Behaviour;
  /** `+gzip` suffix: compress when the client accepts gzip. */
  gzip: boolean;
  /** `+cost`, `+litellm-cost`, `+cached-N` suffixes (billing.ts). */
  billing: BillingSpec;
}

export const MAX_LOREM_WORDS = 1_000_000;
export const MAX_BIG_MIB = 1024;
export const MAX_SLOW_WORDS = 10_000;
export const MAX_KEEPALIVE_SECONDS = 3600;

function int(text: string, max: number): number | null {
  if (!/^\d{1,9}$/.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

function parseBase(name: string): Behaviour | null {
  switch (name) {
    case 'echo':
      return { kind: 'echo' };
    case 'think':
    case 'reason-echo':
      return { kind: 'think' };
    case 'tool':
      return { kind: 'tool' };
    case 'agent':
      return { kind: 'agent', steps: 1 };
    case 'json':
      return { kind: 'json', bad: false };
    case 'json-bad':
      return { kind: 'json', bad: true };
    case 'max-completion-tokens':
      return { kind: 'max-completion-tokens' };
    case 'max-tokens-required':
      return { kind: 'max-tokens-required' };
    case 'html-502':
      return { kind: 'html-502' };
    case 'no-done':
      return { kind: 'no-done' };
    case 'error-event':
      return { kind: 'error-event' };
    case 'error-chunk':
      return { kind: 'error-chunk' };
  }
  let m: RegExpMatchArray | null;
  if ((m = name.match(/^agent-(\d+)$/))) {
    const steps = int(m[1], 10_000);
    return steps === null || steps < 1 ? null : { kind: 'agent', steps };
  }
  if ((m = name.match(/^context-(\d+)$/))) {
    const window = int(m[1], 10_000_000);
    return window === null || window < 1 ? null : { kind: 'context', window };
  }
  if ((m = name.match(/^lorem-(\d+)$/))) {
    const words = int(m[1], MAX_LOREM_WORDS);
    return words === null ? null : { kind: 'lorem', words };
  }
  if ((m = name.match(/^big-(\d+)$/))) {
    const mib = int(m[1], MAX_BIG_MIB);
    return mib === null || mib < 1 ? null : { kind: 'big', mib };
  }
  if ((m = name.match(/^slow-(\d+)$/))) {
    const delayMs = int(m[1], 60_000);
    return delayMs === null ? null : { kind: 'slow', delayMs };
  }
  if ((m = name.match(/^(drop|stall|eof)-after-(\d+)$/))) {
    const after = int(m[2], MAX_SLOW_WORDS);
    return after === null ? null : { kind: 'cut', after, mode: m[1] as CutMode };
  }
  if ((m = name.match(/^keepalive-only-(\d+)$/))) {
    const seconds = int(m[1], MAX_KEEPALIVE_SECONDS);
    return seconds === null ? null : { kind: 'keepalive', seconds };
  }
  if ((m = name.match(/^flaky-(\d+)$/))) {
    const failures = int(m[1], 1_000_000);
    return failures === null ? null : { kind: 'flaky', failures };
  }
  if ((m = name.match(/^busy-(\d+)$/))) {
    const limit = int(m[1], 1_000_000);
    return limit === null || limit < 1 ? null : { kind: 'busy', limit };
  }
  if ((m = name.match(/^fail-429-ms-(\d+)$/))) {
    const ms = int(m[1], 86_400_000);
    return ms === null ? null : { kind: 'fail', status: 429, retryAfter: null, retryAfterMs: String(ms), noRetry: false };
  }
  if ((m = name.match(/^fail-429-(\d+)$/))) {
    const seconds = int(m[1], 86_400);
    return seconds === null ? null : { kind: 'fail', status: 429, retryAfter: String(seconds), retryAfterMs: null, noRetry: false };
  }
  // Any 4xx/5xx works (fail-408, fail-529 …); the documented ones are 401 403 404 429 500 503.
  if ((m = name.match(/^fail-([45]\d\d)(-noretry)?$/))) {
    const status = Number(m[1]);
    return { kind: 'fail', status, retryAfter: status === 429 ? '1' : null, retryAfterMs: null, noRetry: m[2] !== undefined };
  }
  return null;
}

const ANTHROPIC_PREFIX = 'anthropic/';

/** null: unknown model (the gateway answers 404 model_not_found, like a real one). */
export function parseModel(name: string): ModelSpec | null {
  // OpenRouter's form of an Anthropic model (`anthropic/echo` is echo): --cache sends Chat Completions
  // breakpoints only for such ids (SPEC §16), and this lets them be tried here.
  const unprefixed = name.startsWith(ANTHROPIC_PREFIX) ? name.slice(ANTHROPIC_PREFIX.length) : name;
  const gzip = unprefixed.endsWith('+gzip');
  const billed = parseBillingSuffixes(gzip ? unprefixed.slice(0, -'+gzip'.length) : unprefixed);
  const behaviour = billed && parseBase(billed.base);
  return behaviour && billed ? { name, behaviour, gzip, billing: billed.billing } : null;
}

/** What GET /v1/models lists: one representative name per family. */
export const LISTED_MODELS: readonly string[] = [
  'echo',
  'lorem-200',
  'big-50',
  'slow-80',
  'think',
  'reason-echo',
  'tool',
  'agent',
  'json',
  'json-bad',
  'max-completion-tokens',
  'max-tokens-required',
  'context-2000',
  'fail-401',
  'fail-403',
  'fail-404',
  'fail-429',
  'fail-429-120',
  'fail-429-ms-500',
  'fail-500',
  'fail-500-noretry',
  'fail-503',
  'html-502',
  'drop-after-5',
  'stall-after-5',
  'eof-after-5',
  'no-done',
  'error-event',
  'error-chunk',
  'keepalive-only-3',
  'flaky-2',
  'busy-4',
  'echo+gzip',
  'echo+cost',
  'echo+litellm-cost',
  'echo+cached-4',
];
