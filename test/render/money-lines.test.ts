// SPEC §16: where the cost shows on a terminal — the one-shot footer, the chat status line, batch progress
// and summary — as `$…` for the gateway's figure, `~$…` when computed from prices, nothing when unknown.
import { describe, expect, it } from 'vitest';
import { footerText } from '../../src/render/footer.js';
import { statusText } from '../../src/render/ink/StatusLine.js';
import { progressText, summaryText } from '../../src/render/batch.js';
import type { TurnOutcome } from '../../src/session/types.js';

const outcome = (cost: TurnOutcome['result']['cost'], cached: number | null = null): TurnOutcome => ({
  status: 'complete',
  result: {
    text: 'x', reasoning: null, tool_calls: [], finish_reason: 'stop', raw_finish_reason: null,
    usage: { input_tokens: 1200, output_tokens: 80, cache_read_tokens: cached, cache_write_tokens: null },
    model: 'm', api: 'chat', cid: null, cost,
  },
  timings: { firstTokenMs: 10, totalMs: 2500 },
});

describe('cost on a terminal', () => {
  it('the one-shot footer: cached input in brackets, then the cost', () => {
    expect(footerText(outcome({ usd: 0.0042, source: 'gateway' }, 900), 'm', 'chat')).toBe('m · chat · in 1200 (900 cached) / out 80 tokens · $0.0042 · 2.5s');
    expect(footerText(outcome({ usd: 0.0042, source: 'prices' }), 'm', 'chat')).toBe('m · chat · in 1200 / out 80 tokens · ~$0.0042 · 2.5s');
    expect(footerText(outcome(null), 'm', 'chat')).toBe('m · chat · in 1200 / out 80 tokens · 2.5s');
  });

  it('the chat status line after an answer', () => {
    const settings = { model: 'm', api: 'chat' as const, stream: true };
    const last = { text: '', reasoning: '', status: 'complete' as const, input_tokens: 1200, output_tokens: 80, cache_read_tokens: 900, cost: { usd: 0.0042, source: 'prices' as const }, seconds: 2.5, model: 'm' };
    expect(statusText(settings, last)).toBe('m · chat · temp default · in 1200 (900 cached) / out 80 tokens · ~$0.0042 · 2.5s');
    expect(statusText(settings, { ...last, cost: null, cache_read_tokens: 0 })).toBe('m · chat · temp default · in 1200 / out 80 tokens · 2.5s');
  });

  it('batch progress and summary say what was spent and how many costs were unknown', () => {
    const counts = { done: 4, complete: 4, failed: 0, cancelled: 0, invalid: 0, skipped: 0, costUsd: 0.0123, costUnknown: 1 };
    expect(progressText(counts, 10, 2000)).toBe('batch: 4/10 · 2.0/s · $0.0123 spent (1 of unknown cost) · ETA 3 s');
    expect(summaryText({ ...counts, exitCode: 0, elapsedMs: 2000 })).toBe('gatechat: batch: 4 complete in 2.0 s (2.0/s, $0.0123 spent (1 of unknown cost)); exit 0');
    expect(summaryText({ ...counts, costUsd: 0, costUnknown: 4, exitCode: 0, elapsedMs: 2000 })).toBe('gatechat: batch: 4 complete in 2.0 s (2.0/s, cost unknown); exit 0');
  });
});
