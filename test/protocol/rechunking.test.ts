import { describe, expect, it } from 'vitest';
import { apiOf, fixtureBytes, listFixtures, randomChunks, replayBytes, replayChunks, toCrlf } from './replay.js';

const streams = listFixtures().filter((f) => /\.sse(\.gz)?$/.test(f));
const SEEDS = [1, 7, 42, 1234, 99991];

// Small recordings that between them cover tool fragments, usage, error events and both interfaces.
const EXHAUSTIVE = [
  'openai-chat/groq-llama-3.3-tool-call-single-chunk.sse',
  'openai-chat/mistral-zai-glm-tool-call-empty-name-continuation.sse',
  'openai-chat/openrouter-kimi-k2-tool-call-repeated-name-fragments.sse',
  'anthropic-messages/anthropic-compatible-provider-input-tokens-in-message-delta.sse',
];

// The whole-body baseline is decoded inside each test, never while collecting: a mutation run
// (npm run mutate) activates a mutant only while tests run.
describe.each(streams)('re-chunked %s', (rel) => {
  const api = apiOf(rel);
  const bytes = fixtureBytes(rel);

  it('decodes the same at random byte boundaries (1..64 bytes, several seeds)', () => {
    const baseline = replayBytes(api, bytes);
    expect(baseline.events.length).toBeGreaterThan(0);
    for (const seed of SEEDS) {
      expect(replayChunks(api, randomChunks(bytes, seed))).toEqual(baseline);
    }
  });

  it('decodes the same with CRLF line endings, whole and re-chunked', () => {
    const baseline = replayBytes(api, bytes);
    const crlf = toCrlf(bytes);
    expect(crlf.length).toBeGreaterThan(bytes.length);
    expect(replayBytes(api, crlf)).toEqual(baseline);
    expect(replayChunks(api, randomChunks(crlf, 3))).toEqual(baseline);
  });

  it('decodes the same one byte at a time', () => {
    expect(replayChunks(api, randomChunks(bytes, 5, 1))).toEqual(replayBytes(api, bytes));
  });
});

describe.each(EXHAUSTIVE)('every split point of %s', (rel) => {
  it('gives identical results for each of the n+1 two-piece splits', () => {
    const api = apiOf(rel);
    const bytes = fixtureBytes(rel);
    const baseline = replayBytes(api, bytes);
    expect(baseline.termination).toBe('end_marker');
    let mismatches = 0;
    for (let i = 0; i <= bytes.length; i++) {
      const split = replayChunks(api, [bytes.subarray(0, i), bytes.subarray(i)]);
      if (JSON.stringify(split) !== JSON.stringify(baseline)) mismatches += 1;
    }
    expect(mismatches).toBe(0);
  });
});
