// Shared harness: feed recorded bytes through the same pipeline the client uses
// (TextDecoder(stream) → eventsource-parser → decoder) and fold the events.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createParser } from 'eventsource-parser';
import { ResultAccumulator, type TurnOutcomeKind } from '../../src/protocol/accumulate.js';
import type { ProtocolDecoder } from '../../src/protocol/decoder-support.js';
import type { Api, ChatEvent, ChatResult, Termination } from '../../src/protocol/events.js';
import { protocolFor } from '../../src/protocol/index.js';
import { chunkSizes, fixturesDir } from '../helpers/fixtures.js';

export { listFixtures, readExpected, toCrlf } from '../helpers/fixtures.js';

export function apiOf(rel: string): Api {
  return rel.startsWith('anthropic-messages/') ? 'messages' : 'chat';
}

/** Body bytes as the client sees them after Content-Encoding is undone. */
export function fixtureBytes(rel: string): Uint8Array {
  const raw = readFileSync(path.join(fixturesDir, rel));
  return rel.endsWith('.gz') ? gunzipSync(raw) : raw;
}

export function fixtureText(rel: string): string {
  return new TextDecoder().decode(fixtureBytes(rel));
}


export interface Replay {
  events: ChatEvent[];
  termination: Termination;
  warnings: readonly string[];
  damage: ProtocolDecoder['damage'];
}

export function replayChunks(api: Api, chunks: Iterable<Uint8Array>): Replay {
  const decoder: ProtocolDecoder = protocolFor(api).createDecoder();
  const events: ChatEvent[] = [];
  const parser = createParser({
    onEvent(e) {
      // pushTo, as the client decodes (push() is built on it for Chat Completions, tested on its own).
      decoder.pushTo({ event: e.event, data: e.data }, events);
    },
  });
  const text = new TextDecoder();
  for (const chunk of chunks) parser.feed(text.decode(chunk, { stream: true }));
  parser.feed(text.decode());
  // No parser.reset({consume: true}): an event without its blank line was never dispatched.
  const end = decoder.finish();
  events.push(...end.events);
  return { events, termination: end.termination, warnings: decoder.warnings, damage: decoder.damage };
}

export function replayBytes(api: Api, bytes: Uint8Array): Replay {
  return replayChunks(api, [bytes]);
}

export function randomChunks(bytes: Uint8Array, seed: number, maxSize = 64): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const size of chunkSizes(bytes.length, seed, maxSize)) {
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
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
