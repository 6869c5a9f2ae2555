// Shared harness: feed recorded bytes through the same pipeline the client uses
// (TextDecoder(stream) → eventsource-parser → decoder) and fold the events.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createParser } from 'eventsource-parser';
import { ResultAccumulator, type TurnOutcomeKind } from '../../src/protocol/accumulate.js';
import type { ProtocolDecoder } from '../../src/protocol/decoder-support.js';
import type { Api, ChatEvent, ChatResult, Termination } from '../../src/protocol/events.js';
import { protocolFor } from '../../src/protocol/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = path.resolve(repoRoot, '..', 'shared', 'fixtures', 'recorded');

export function listFixtures(): string[] {
  const out: string[] = [];
  for (const dir of ['openai-chat', 'anthropic-messages']) {
    for (const name of readdirSync(path.join(FIXTURES, dir)).sort()) out.push(`${dir}/${name}`);
  }
  return out;
}

export function apiOf(rel: string): Api {
  return rel.startsWith('anthropic-messages/') ? 'messages' : 'chat';
}

/** Body bytes as the client sees them after Content-Encoding is undone. */
export function fixtureBytes(rel: string): Uint8Array {
  const raw = readFileSync(path.join(FIXTURES, rel));
  return rel.endsWith('.gz') ? gunzipSync(raw) : raw;
}

export function fixtureText(rel: string): string {
  return new TextDecoder().decode(fixtureBytes(rel));
}

export function readExpected(): Record<string, Record<string, unknown>> {
  return JSON.parse(readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as Record<string, Record<string, unknown>>;
}

export interface Replay {
  events: ChatEvent[];
  termination: Termination;
  warnings: readonly string[];
}

export function replayChunks(api: Api, chunks: Iterable<Uint8Array>): Replay {
  const decoder: ProtocolDecoder = protocolFor(api).createDecoder();
  const events: ChatEvent[] = [];
  const parser = createParser({
    onEvent(e) {
      events.push(...decoder.push({ event: e.event, data: e.data }));
    },
  });
  const text = new TextDecoder();
  for (const chunk of chunks) parser.feed(text.decode(chunk, { stream: true }));
  parser.feed(text.decode());
  // No parser.reset({consume: true}): an event without its blank line was never dispatched.
  const end = decoder.finish();
  events.push(...end.events);
  return { events, termination: end.termination, warnings: decoder.warnings };
}

export function replayBytes(api: Api, bytes: Uint8Array): Replay {
  return replayChunks(api, [bytes]);
}

/** Deterministic PRNG so a failing split can be reproduced from its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomChunks(bytes: Uint8Array, seed: number, maxSize = 64): Uint8Array[] {
  const rand = mulberry32(seed);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const size = 1 + Math.floor(rand() * maxSize);
    chunks.push(bytes.subarray(i, i + size));
    i += size;
  }
  return chunks;
}

export function toCrlf(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(bytes).replace(/\r?\n/g, '\r\n');
  return new TextEncoder().encode(text);
}

export function fold(events: ChatEvent[], api: Api, outcome: TurnOutcomeKind): ChatResult {
  const acc = new ResultAccumulator();
  for (const e of events) acc.add(e);
  return acc.result({ api, cid: null, outcome });
}

export function outcomeFor(termination: Termination): TurnOutcomeKind {
  switch (termination) {
    case 'end_marker':
    case 'finish_then_eof':
      return 'complete';
    case 'error':
      return 'error';
    case 'truncated':
      return 'interrupted';
    default: {
      const never: never = termination;
      return never;
    }
  }
}

export function sse(...messages: string[]): Uint8Array {
  return new TextEncoder().encode(messages.join(''));
}
