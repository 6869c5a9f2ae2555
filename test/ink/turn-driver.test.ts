import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatEvent } from '../../src/protocol/events.js';
import type { TurnOutcome } from '../../src/session/types.js';
import type { DeltaBatch } from '../../src/render/ink/delta-batch.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';
import { driveTurn, MAX_BATCH_CHARS } from '../../src/render/ink/turn-driver.js';

const done = { status: 'complete' } as TurnOutcome;

async function* tokens(n: number): AsyncGenerator<ChatEvent, TurnOutcome, void> {
  for (let i = 0; i < n; i++) yield { type: 'text', delta: `t${i} ` };
  yield { type: 'usage', input_tokens: 1, output_tokens: n };
  return done;
}

describe('driveTurn', () => {
  it('delivers a burst of tokens in few batches, all text included, before returning', async () => {
    const batches: DeltaBatch[] = [];
    const outcome = await driveTurn(tokens(500), { onBatch: (b) => batches.push(b) });
    expect(outcome).toBe(done);
    expect(batches.length).toBeLessThan(5);
    expect(batches.map((b) => b.text).join('')).toBe(Array.from({ length: 500 }, (_, i) => `t${i} `).join(''));
    expect(batches.at(-1)?.usage).toEqual({ input_tokens: 1, output_tokens: 500 });
  });

  it('a stream faster than the view draws is read at the view\'s pace: no batch holds more than MAX_BATCH_CHARS and one event', async () => {
    let pulled = 0;
    let delivered = 0;
    let aheadMost = 0;
    const event = 'x'.repeat(64 * 1024);
    async function* flood(): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      for (let i = 0; i < 100; i++) {
        // What the driver has read beyond what it handed over, each time it asks for more.
        aheadMost = Math.max(aheadMost, pulled - delivered);
        pulled += event.length;
        yield { type: 'text', delta: event };
      }
      return done;
    }
    const sizes: number[] = [];
    await driveTurn(flood(), {
      batchMs: 5,
      onBatch: (b) => {
        sizes.push(b.text.length);
        delivered += b.text.length;
      },
    });
    expect(delivered).toBe(100 * event.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_BATCH_CHARS + event.length);
    expect(aheadMost).toBeLessThanOrEqual(MAX_BATCH_CHARS + event.length);
  });

  it('flushes on a timer while a slow stream is still running', async () => {
    const batches: string[] = [];
    async function* slow(): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      yield { type: 'text', delta: 'a' };
      await new Promise((r) => setTimeout(r, 120));
      yield { type: 'text', delta: 'b' };
      return done;
    }
    await driveTurn(slow(), { onBatch: (b) => batches.push(b.text), batchMs: 10 });
    expect(batches).toEqual(['a', 'b']);
  });

  it('hands over what arrived before a generator throws', async () => {
    const batches: string[] = [];
    async function* broken(): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      yield { type: 'text', delta: 'kept' };
      throw new Error('boom');
    }
    await expect(driveTurn(broken(), { onBatch: (b) => batches.push(b.text) })).rejects.toThrow('boom');
    expect(batches).toEqual(['kept']);
  });
});

describe('input history file', () => {
  it('appends JSONL with mode 0600 and reads it back, skipping torn lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-hist-'));
    const file = join(dir, 'sub', 'input-history.jsonl');
    const h = openInputHistory(file);
    h.append('one');
    h.append('two\nlines');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, `${readFileSync(file, 'utf8')}"torn`);
    expect(openInputHistory(file).entries).toEqual(['one', 'two\nlines']);
  });

  it('keeps only the newest entries past the cap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-hist-'));
    const file = join(dir, 'h.jsonl');
    writeFileSync(file, Array.from({ length: 25 }, (_, i) => `${JSON.stringify(`e${i}`)}\n`).join(''));
    expect(openInputHistory(file, { limit: 10 }).entries).toEqual(Array.from({ length: 10 }, (_, i) => `e${i + 15}`));
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBe(10);
  });

  it('write: false (--no-save) reads the earlier prompts and writes nothing, not even the compaction', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-hist-'));
    const file = join(dir, 'h.jsonl');
    const before = Array.from({ length: 25 }, (_, i) => `${JSON.stringify(`e${i}`)}\n`).join('');
    writeFileSync(file, before);
    const h = openInputHistory(file, { limit: 10, write: false });
    expect(h.entries).toHaveLength(10);
    h.append('private');
    expect(readFileSync(file, 'utf8')).toBe(before);
    const missing = join(dir, 'none', 'h.jsonl');
    openInputHistory(missing, { write: false }).append('private');
    expect(existsSync(join(dir, 'none'))).toBe(false);
  });
});
