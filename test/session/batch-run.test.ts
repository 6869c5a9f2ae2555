// The local batch scheduler (SPEC §13) driven directly: what each input line becomes (answer, invalid,
// skipped), the counts and costs the summary shows, which line decides the exit code, the budget stop
// (§16) and Ctrl-C — with send/write supplied by the test, so no gateway is needed.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ExitCode, GatechatError, UsageError, type ExitCodeValue } from '../../src/exit-codes.js';
import type { ChatEvent } from '../../src/protocol/events.js';
import { drain, lineStatus, runBatch, type BatchCounts, type BatchRecord, type BatchRunOptions } from '../../src/session/batch.js';
import type { ParsedLine } from '../../src/session/batch-input.js';
import { Budget } from '../../src/session/budget.js';
import type { TurnOutcome, TurnStatus } from '../../src/session/types.js';

function outcome(status: TurnStatus, extra: { error?: GatechatError; usd?: number; text?: string } = {}): TurnOutcome {
  return {
    status,
    ...(extra.error ? { error: extra.error } : {}),
    result: {
      text: extra.text ?? '',
      reasoning: null,
      tool_calls: [],
      finish_reason: status === 'complete' ? 'stop' : null,
      raw_finish_reason: null,
      usage: { input_tokens: 1, output_tokens: 1 },
      model: 'm',
      api: 'chat',
      cid: null,
      cost: extra.usd === undefined ? null : { usd: extra.usd, source: 'gateway' },
    },
    timings: { firstTokenMs: null, totalMs: 0 },
  };
}

const item = (line: number, id: string | number = line): ParsedLine => ({ kind: 'item', item: { line, id, prompt: `p${line}` } });

async function* from(lines: ParsedLine[], pulled?: { count: number }): AsyncGenerator<ParsedLine> {
  for (const line of lines) {
    if (pulled) pulled.count++;
    yield line;
  }
}

/** runBatch with the records it wrote and every progress snapshot it reported. */
async function run(options: Partial<BatchRunOptions> & Pick<BatchRunOptions, 'lines' | 'send'>) {
  const written: BatchRecord[] = [];
  const progress: BatchCounts[] = [];
  const summary = await runBatch({
    skip: new Set(),
    concurrency: 1,
    signal: new AbortController().signal,
    write: async (record) => {
      written.push(record);
    },
    onProgress: (counts) => progress.push({ ...counts }),
    ...options,
  });
  return { summary, written, progress };
}

describe('lineStatus', () => {
  it('an answer that arrived whole but failed its check is an error; any other status is its own', () => {
    const mismatch = new GatechatError('answer does not match', ExitCode.SchemaMismatch);
    expect(lineStatus(outcome('complete'))).toBe('complete');
    expect(lineStatus(outcome('complete', { error: mismatch }))).toBe('error');
    expect(lineStatus(outcome('error', { error: mismatch }))).toBe('error');
    expect(lineStatus(outcome('cancelled', { error: new GatechatError('stop', ExitCode.interrupted) }))).toBe('cancelled');
    expect(lineStatus(outcome('interrupted'))).toBe('interrupted');
  });
});

describe('runBatch', () => {
  it('every kind of line: written once each, counted, costs summed; an invalid line decides exit 2', async () => {
    const sent: number[] = [];
    const before = Date.now();
    const { summary, written, progress } = await run({
      lines: from([item(1), { kind: 'blank', line: 2 }, { kind: 'invalid', line: 3, id: 3, message: 'not JSON' }, item(4, 'done'), item(5), item(6), item(7), item(8), item(9), item(10)]),
      skip: new Set(['"done']),
      precheck: (it) => (it.line === 5 ? 'no model' : null),
      send: async (it) => {
        sent.push(it.line);
        if (it.line === 6) throw new UsageError('--attach: cannot read f.txt');
        if (it.line === 7) return outcome('error', { error: new GatechatError('HTTP 429', ExitCode.rateLimited), usd: 0.25 });
        if (it.line === 8) return outcome('cancelled');
        if (it.line === 9) return outcome('complete', { error: new GatechatError('answer does not match', ExitCode.SchemaMismatch) });
        if (it.line === 10) return outcome('complete');
        return outcome('complete', { usd: 0.5, text: 'one' });
      },
    });
    expect(sent).toEqual([1, 6, 7, 8, 9, 10]);
    expect(written.map((r) => (r.kind === 'invalid' ? ['invalid', r.line, r.id, r.message] : ['answer', r.item.line, r.outcome.status]))).toEqual([
      ['answer', 1, 'complete'],
      ['invalid', 3, 3, 'not JSON'],
      ['invalid', 5, 5, 'no model'],
      ['invalid', 6, 6, '--attach: cannot read f.txt'],
      ['answer', 7, 'error'],
      ['answer', 8, 'cancelled'],
      ['answer', 9, 'complete'],
      ['answer', 10, 'complete'],
    ]);
    expect(written[0]).toEqual({ kind: 'answer', item: { line: 1, id: 1, prompt: 'p1' }, outcome: expect.objectContaining({ status: 'complete', result: expect.objectContaining({ text: 'one' }) }) });
    expect(summary).toMatchObject({ done: 5, complete: 2, failed: 2, cancelled: 1, invalid: 3, skipped: 1, costUsd: 0.75, costUnknown: 3 });
    expect(summary.exitCode).toBe(ExitCode.usage);
    expect(summary.decidedBy).toEqual({ line: 3, id: 3, message: 'not JSON' });
    expect(summary.budgetStop).toBeUndefined();
    expect(summary.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(summary.elapsedMs).toBeLessThanOrEqual(Date.now() - before);
    // One progress report per written record and one for the skipped line.
    expect(progress).toHaveLength(9);
    expect(progress[0]).toMatchObject({ done: 1, complete: 1, costUsd: 0.5, costUnknown: 0 });
    expect(progress[2]).toMatchObject({ invalid: 1, skipped: 1, done: 1 });
  });

  it('no failure: exit 0, nothing decided; without onProgress or precheck it still runs', async () => {
    const summary = await runBatch({
      lines: from([item(1), item(2, 'b')]),
      skip: new Set(['#1']),
      concurrency: 2,
      signal: new AbortController().signal,
      write: async () => {},
      send: async () => outcome('complete', { usd: 0.1 }),
    });
    expect(summary).toMatchObject({ exitCode: 0, done: 1, complete: 1, skipped: 1, failed: 0, invalid: 0 });
    expect(summary.decidedBy).toBeUndefined();
    expect('decidedBy' in summary).toBe(false);
    expect('budgetStop' in summary).toBe(false);
  });

  it('the first failed line by input order decides the exit code, whichever finished first', async () => {
    // In order: lines 1 then 2 fail.
    const inOrder = await run({
      lines: from([item(1), item(2)]),
      send: async (it) => outcome('error', { error: new GatechatError(`refused ${it.line}`, it.line === 1 ? ExitCode.rejected : ExitCode.rateLimited) }),
    });
    expect(inOrder.summary.exitCode).toBe(ExitCode.rejected);
    expect(inOrder.summary.decidedBy).toEqual({ line: 1, id: 1, message: 'refused 1' });

    // Out of order: line 2 finishes (and fails) before line 1 does.
    let line2Written!: () => void;
    const line2Done = new Promise<void>((resolve) => (line2Written = resolve));
    const outOfOrder = await run({
      lines: from([item(1, 'a'), item(2, 'b'), item(3, 'c')]),
      concurrency: 2,
      write: async (record) => {
        if (record.kind === 'answer' && record.item.line === 2) line2Written();
      },
      send: async (it) => {
        if (it.line === 1) await line2Done;
        return outcome('error', { error: new GatechatError(`refused ${it.line}`, it.line === 1 ? ExitCode.rejected : ExitCode.rateLimited) });
      },
    });
    expect(outOfOrder.summary).toMatchObject({ failed: 3, exitCode: ExitCode.rejected, decidedBy: { line: 1, id: 'a', message: 'refused 1' } });
  });

  it('a failure with no error object is a server error (exit 6) named by its status', async () => {
    const { summary } = await run({ lines: from([item(4, 'q')]), send: async () => outcome('error') });
    expect(summary).toMatchObject({ failed: 1, exitCode: ExitCode.server, decidedBy: { line: 4, id: 'q', message: 'error' } });
  });

  it('the first invalid line by input order decides, whichever was written first', async () => {
    let line2Written!: () => void;
    const line2Done = new Promise<void>((resolve) => (line2Written = resolve));
    const { summary } = await run({
      lines: from([item(1), item(2), item(3)]),
      concurrency: 2,
      write: async (record) => {
        if (record.kind === 'invalid' && record.line === 2) line2Written();
      },
      send: async (it) => {
        if (it.line === 1) await line2Done;
        throw new UsageError(`bad ${it.line}`);
      },
    });
    expect(summary).toMatchObject({ invalid: 3, exitCode: ExitCode.usage, decidedBy: { line: 1, id: 1, message: 'bad 1' } });
  });

  it('an invalid line decides over an earlier failed one', async () => {
    const { summary } = await run({
      lines: from([item(1), { kind: 'invalid', line: 2, id: 'x', message: 'unknown field' }]),
      send: async () => outcome('error', { error: new GatechatError('HTTP 500', ExitCode.server) }),
    });
    expect(summary).toMatchObject({ exitCode: ExitCode.usage, decidedBy: { line: 2, id: 'x', message: 'unknown field' } });
  });

  it('an error that is not a UsageError is not a line problem: the batch fails with it', async () => {
    await expect(run({ lines: from([item(1)]), send: async () => Promise.reject(new Error('disk on fire')) })).rejects.toThrow('disk on fire');
  });

  it('a turn given as an event generator is drained to its outcome', async () => {
    async function* turn(): AsyncGenerator<ChatEvent, TurnOutcome, void> {
      yield { type: 'text', delta: 'he' } as ChatEvent;
      yield { type: 'text', delta: 'llo' } as ChatEvent;
      return outcome('complete', { text: 'hello' });
    }
    expect((await drain(turn())).result.text).toBe('hello');
    const { written } = await run({ lines: from([item(1)]), send: () => turn() });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ kind: 'answer', outcome: { status: 'complete', result: { text: 'hello' } } });
  });

  it('a budget reached stops taking lines (those never read are left for the rerun): exit 11, the budget named', async () => {
    const budget = new Budget({ maxCost: 1 });
    const pulled = { count: 0 };
    const { summary, written } = await run({
      lines: from([item(1), item(2), item(3), item(4)], pulled),
      budget,
      send: async (it) => {
        const usd = 0.6;
        budget.charge({ usd, source: 'gateway' });
        return it.line === 1 ? outcome('error', { error: new GatechatError('HTTP 429', ExitCode.rateLimited), usd }) : outcome('complete', { usd });
      },
    });
    expect(written).toHaveLength(2);
    expect(pulled.count).toBe(2);
    expect(summary.exitCode).toBe(ExitCode.budget);
    expect(summary.budgetStop).toMatch(/^budget reached: --max-cost \$1/);
    expect(summary.decidedBy).toBeUndefined();
    expect(summary).toMatchObject({ done: 2, failed: 1, complete: 1 });
  });

  it('Ctrl-C: no new line is taken, the exit code is the interrupt\'s (130, or the one the caller names)', async () => {
    for (const [interruptedCode, expected] of [[undefined, 130], [() => ExitCode.terminated, 143]] as Array<[(() => ExitCodeValue) | undefined, number]>) {
      const controller = new AbortController();
      const sent: number[] = [];
      const { summary, written } = await run({
        lines: from([item(1), item(2), item(3)]),
        signal: controller.signal,
        ...(interruptedCode ? { interruptedCode } : {}),
        send: async (it) => {
          sent.push(it.line);
          if (it.line === 1) return outcome('error', { error: new GatechatError('HTTP 500', ExitCode.server) });
          controller.abort();
          return outcome('cancelled');
        },
      });
      expect(sent).toEqual([1, 2]);
      expect(written).toHaveLength(2);
      expect(summary).toMatchObject({ exitCode: expected, cancelled: 1, failed: 1 });
      expect(summary.decidedBy).toBeUndefined();
    }
  });

  it('Ctrl-C while waiting for input that never comes (stdin left open) ends the batch, leaving no listener behind', async () => {
    const controller = new AbortController();
    async function* stdin(): AsyncGenerator<ParsedLine> {
      yield item(1);
      await new Promise(() => {});
    }
    const written: BatchRecord[] = [];
    const { summary } = await run({
      lines: stdin(),
      signal: controller.signal,
      write: async (record) => {
        written.push(record);
        setTimeout(() => controller.abort(), 5);
      },
      send: async () => outcome('complete'),
    });
    expect(summary).toMatchObject({ exitCode: ExitCode.interrupted, complete: 1 });
    expect(written).toHaveLength(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an input that is interrupted as the next line is asked for stops at once', async () => {
    const controller = new AbortController();
    async function* closing(): AsyncGenerator<ParsedLine> {
      yield item(1);
      controller.abort();
      await new Promise(() => {});
    }
    const { summary } = await run({ lines: closing(), signal: controller.signal, send: async () => outcome('complete') });
    expect(summary).toMatchObject({ exitCode: ExitCode.interrupted, complete: 1 });
  });

  it('each line read removes its abort listener again, also when reading fails', async () => {
    const controller = new AbortController();
    await run({ lines: from([item(1), item(2), item(3)]), signal: controller.signal, concurrency: 2, send: async () => outcome('complete') });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    async function* broken(): AsyncGenerator<ParsedLine> {
      yield item(1);
      throw new Error('EIO reading the input');
    }
    await expect(run({ lines: broken(), signal: controller.signal, send: async () => outcome('complete') })).rejects.toThrow('EIO reading the input');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
