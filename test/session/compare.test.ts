// Compare mode's scheduling (SPEC §11): every model gets the prompt, at most `limit` at a time, outcomes in
// the order given. The conversations here are stand-ins that answer at once: what is under test is only
// the scheduling (each real Conversation is tested over loopback HTTP in conversation.test.ts).
import { describe, expect, it } from 'vitest';
import { MAX_COMPARE_IN_FLIGHT, runCompare } from '../../src/session/compare.js';
import type { Attachment, ChatEvent } from '../../src/protocol/events.js';
import type { Conversation, TurnOutcome } from '../../src/session/types.js';

function standIn(name: string, log: string[], gate: Promise<void>): Conversation {
  return {
    settings: { model: name, api: 'chat', stream: true },
    cid: null,
    turns: [],
    update: () => {},
    retry: () => null,
    clear: () => {},
    async *send(prompt: string, _signal: AbortSignal, attachments: Attachment[] = []): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      log.push(`send ${name}`);
      await gate;
      yield { type: 'text', delta: `${name}:${prompt}:${attachments.map((a) => a.path).join('+')}` };
      log.push(`end ${name}`);
      return { status: 'complete', result: { text: name } } as unknown as TurnOutcome;
    },
  };
}

describe('runCompare', () => {
  it('at most `limit` in flight, the next starting as one finishes; outcomes and events per model', async () => {
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const models = ['a', 'b', 'c'].map((name) => standIn(name, log, gate));
    const events: string[] = [];
    const started: number[] = [];
    const done: number[] = [];
    const running = runCompare(models, { prompt: 'hi', attachments: [{ kind: 'text', path: 'f.txt', text: 'x' }] }, new AbortController().signal, {
      onStart: (i) => started.push(i),
      onEvent: (i, e) => void events.push(`${i} ${e.type === 'text' ? e.delta : e.type}`),
      onDone: (i) => void done.push(i),
    }, 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['send a', 'send b']);
    expect(started).toEqual([0, 1]);
    open();
    const outcomes = await running;
    expect(outcomes.map((o) => o.result.text)).toEqual(['a', 'b', 'c']);
    expect(started).toEqual([0, 1, 2]);
    expect(done.sort()).toEqual([0, 1, 2]);
    expect(events.sort()).toEqual(['0 a:hi:f.txt', '1 b:hi:f.txt', '2 c:hi:f.txt']);
  });

  it('a plain prompt sends no files; the default limit is 8, and at least one runs', async () => {
    expect(MAX_COMPARE_IN_FLIGHT).toBe(8);
    const log: string[] = [];
    const gate = Promise.resolve();
    const events: string[] = [];
    const many = Array.from({ length: 10 }, (_, i) => standIn(`m${i}`, log, new Promise<void>(() => {})));
    void runCompare(many, 'x', new AbortController().signal, { onEvent: () => {}, onDone: () => {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toHaveLength(8);
    const outcomes = await runCompare([standIn('solo', [], gate)], 'x', new AbortController().signal, { onEvent: (_, e) => void events.push(e.type === 'text' ? e.delta : ''), onDone: () => {} }, 0);
    expect(outcomes).toHaveLength(1);
    expect(events).toEqual(['solo:x:']);
    expect(await runCompare([], 'x', new AbortController().signal, { onEvent: () => {}, onDone: () => {} })).toEqual([]);
  });
});
