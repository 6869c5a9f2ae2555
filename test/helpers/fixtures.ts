// The recorded gateway responses in ../shared/fixtures/recorded, and the seeded ways the tests cut
// them up: shared by the decoder replays (test/protocol) and the replay server (test/e2e).
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

// GATECHAT_FIXTURES_DIR: set by stryker.config.mjs, whose sandbox copy of test/ has no ../shared beside it.
export const fixturesDir =
  process.env.GATECHAT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures', 'recorded');

/** Every recording, as `openai-chat/…` / `anthropic-messages/…` paths (the keys of expected.json). */
export function listFixtures(): string[] {
  return ['openai-chat', 'anthropic-messages'].flatMap((dir) =>
    readdirSync(join(fixturesDir, dir))
      .sort()
      .map((name) => `${dir}/${name}`),
  );
}

export function readExpected(): Record<string, Record<string, any>> {
  return JSON.parse(readFileSync(join(fixturesDir, 'expected.json'), 'utf8'));
}

/** mulberry32: tiny and seedable, so a failing split can be reproduced from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Piece sizes (1..maxChunk) covering `length` bytes, the same for the same seed. */
export function chunkSizes(length: number, seed: number, maxChunk: number): number[] {
  const random = seededRandom(seed);
  const sizes: number[] = [];
  for (let at = 0; at < length; ) {
    const size = Math.min(length - at, 1 + Math.floor(random() * Math.max(1, maxChunk)));
    sizes.push(size);
    at += size;
  }
  return sizes;
}

/** LF → CRLF on the bytes; latin1 maps bytes 1:1, so UTF-8 sequences are never touched. */
export function toCrlf(bytes: Uint8Array): Buffer {
  return Buffer.from(Buffer.from(bytes).toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
}

/**
 * SPEC §16: input_tokens is all input on both interfaces (Messages counts cache reads and writes apart:
 * added back); the cache counts as each vendor reports them, null when not reported.
 */
export function expectedUsage(exp: Record<string, any>): Record<string, unknown> {
  const u = exp.usage as Record<string, any> | null | undefined;
  if (u === null || u === undefined) return { input_tokens: null, output_tokens: null, cache_read_tokens: null, cache_write_tokens: null };
  if ('prompt_tokens' in u) {
    return {
      input_tokens: u.prompt_tokens,
      output_tokens: u.completion_tokens,
      cache_read_tokens: u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens ?? null,
      cache_write_tokens: null,
    };
  }
  const read = u.cache_read_input_tokens ?? null;
  const write = u.cache_creation_input_tokens ?? null;
  return {
    input_tokens: typeof u.input_tokens === 'number' ? u.input_tokens + (read ?? 0) + (write ?? 0) : null,
    output_tokens: u.output_tokens,
    cache_read_tokens: read,
    cache_write_tokens: write,
  };
}
