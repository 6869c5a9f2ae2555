import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeErrorBody } from '../../src/protocol/error-body.js';
import type { ChatEvent, Termination } from '../../src/protocol/events.js';
import { normalizeFinishReason } from '../../src/protocol/finish-reason.js';
import { protocolFor } from '../../src/protocol/index.js';
import { apiOf, fixtureBytes, fold, listFixtures, outcomeFor, readExpected, replayBytes } from './replay.js';
import { expectedUsage, fixturesDir } from '../helpers/fixtures.js';

type Expected = Record<string, unknown>;
const expected = readExpected();
const fixtures = listFixtures();

const TERMINATION: Record<string, Termination> = {
  done: 'end_marker',
  message_stop: 'end_marker',
  finish_reason_then_eof: 'finish_then_eof',
  error: 'error',
  truncated: 'truncated',
};

function lastFinish(events: ChatEvent[]): Extract<ChatEvent, { type: 'finish' }> | undefined {
  return events.filter((e): e is Extract<ChatEvent, { type: 'finish' }> => e.type === 'finish').at(-1);
}

function expectedTools(exp: Expected): { id: unknown; name: unknown; arguments: unknown }[] {
  const calls = (exp.tool_calls ?? []) as Record<string, unknown>[];
  return calls.map((c) => ({ id: c.id, name: c.name, arguments: 'input' in c ? c.input : c.arguments_parsed }));
}

/** Checks shared by streamed and non-streamed answers. */
function checkAnswer(rel: string, events: ChatEvent[], exp: Expected, outcome: Parameters<typeof fold>[2]): void {
  const api = apiOf(rel);
  const result = fold(events, api, outcome);
  expect(result.text).toBe(exp.text);
  expect(result.reasoning).toBe(api === 'messages' ? exp.thinking : exp.reasoning);
  expect(result.tool_calls).toEqual(expectedTools(exp));
  expect(result.usage).toEqual(expectedUsage(exp));
  // OpenRouter's recordings carry its own cost figure; nothing else invents one.
  const cost = (exp.usage as Record<string, unknown> | null | undefined)?.cost;
  expect(result.cost).toEqual(typeof cost === 'number' ? { usd: cost, source: 'gateway' } : null);
  const rawExpected = (api === 'messages' ? exp.stop_reason : exp.finish_reason) as string | null;
  const finish = lastFinish(events);
  expect(finish?.raw ?? null).toBe(rawExpected);
  expect(result.raw_finish_reason).toBe(rawExpected);
  const normalised =
    'effective_finish_reason' in exp ? exp.effective_finish_reason : rawExpected === null ? null : normalizeFinishReason(rawExpected);
  expect(finish?.reason ?? null).toBe(normalised);
  if (normalised !== null) expect(result.finish_reason).toBe(normalised);
  if (typeof exp.model === 'string') expect(result.model).toBe(exp.model);
  // Tool calls arrive whole: exactly one event per call.
  expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(result.tool_calls.length);
}

describe('recorded fixtures', () => {
  it('covers every recorded file, and every file has an expectation', () => {
    expect(fixtures.length).toBe(43);
    expect([...fixtures].sort()).toEqual(Object.keys(expected).sort());
  });

  const errorBodies = fixtures.filter((f) => typeof expected[f]?.http_status === 'number');
  const nonStream = fixtures.filter((f) => f.endsWith('.json') && !errorBodies.includes(f));
  const streams = fixtures.filter((f) => /\.sse(\.gz)?$/.test(f));

  it('classifies all 43 files', () => {
    expect(errorBodies.length + nonStream.length + streams.length).toBe(fixtures.length);
  });

  // Decoded inside each test, never while collecting: a mutation run (npm run mutate) activates a mutant
  // only while tests run, so an answer decoded at collection could never notice one.
  describe.each(streams)('stream %s', (rel) => {
    const exp = expected[rel];
    const api = apiOf(rel);
    const bytes = fixtureBytes(rel);

    it('reconstructs text, reasoning, tool calls, usage and finish reason, and ends with the recorded termination', () => {
      const replay = replayBytes(api, bytes);
      checkAnswer(rel, replay.events, exp, outcomeFor(replay.termination));
      expect(replay.termination).toBe(TERMINATION[exp.termination as string]);
    });

    it('reports stream errors with the gateway message, and nothing else as an error', () => {
      const replay = replayBytes(api, bytes);
      const errors = replay.events.filter((e): e is Extract<ChatEvent, { type: 'error' }> => e.type === 'error');
      const recorded = (exp.errors ?? []) as { body: Record<string, unknown> }[];
      expect(errors).toHaveLength(recorded.length);
      recorded.forEach((r, i) => {
        const body = (r.body.error ?? r.body) as Record<string, unknown>;
        expect(errors[i].message).toBe(body.message);
        expect(errors[i].status).toBe(400);
      });
      expect(replay.warnings).toEqual([]);
    });
  });

  describe.each(nonStream)('non-stream %s', (rel) => {
    it('parses the body into the same events a stream would give', () => {
      const body = JSON.parse(readFileSync(path.join(fixturesDir, rel), 'utf8')) as unknown;
      const events = protocolFor(apiOf(rel)).parseResponse(body);
      checkAnswer(rel, events, expected[rel], 'complete');
      expect(events.filter((e) => e.type === 'model')).toHaveLength(1);
    });
  });

  describe.each(errorBodies)('error body %s', (rel) => {
    it("extracts the gateway's own message", () => {
      const exp = expected[rel] as { error: Record<string, unknown> };
      const info = describeErrorBody(readFileSync(path.join(fixturesDir, rel), 'utf8'), 'application/json');
      expect(info.message).toContain(exp.error.message);
      if (typeof exp.error.type === 'string') expect(info.type).toBe(exp.error.type);
      if (exp.error.code !== undefined) expect(info.code).toBe(exp.error.code);
      const metadata = exp.error.metadata as { raw?: string } | undefined;
      if (metadata?.raw !== undefined) expect(info.message).toContain(metadata.raw);
    });
  });
});
