import type { ChatEvent } from '../../protocol/events.js';
import type { TurnOutcome } from '../../session/types.js';
import { addEvent, emptyBatch, isEmptyBatch, type DeltaBatch } from './delta-batch.js';

export const BATCH_MS = 30;

/**
 * Text a batch gathers before the driver hands it over at once and waits one batch interval before
 * reading on. A stream faster than a terminal can draw (a hostile gateway's endless answer) is then
 * read at the pace the view draws it, its bytes waiting in the socket, instead of piling up in memory
 * and in one huge render. About 8 MB/s, far above any model's pace.
 */
export const MAX_BATCH_CHARS = 256 * 1024;

export interface DriveOptions {
  onBatch(batch: DeltaBatch): void;
  batchMs?: number;
  /** Awaited once before the first batch with text is handed over (the Markdown renderer). */
  beforeFirstText?: () => Promise<void>;
}

/**
 * Pulls a turn's events and hands them to the UI in batches on a short timer: one state update per
 * ~30 ms however fast tokens arrive. Returns the outcome after the last batch was delivered.
 */
export async function driveTurn(
  events: AsyncGenerator<ChatEvent, TurnOutcome, void>,
  options: DriveOptions,
): Promise<TurnOutcome> {
  const batchMs = options.batchMs ?? BATCH_MS;
  let batch = emptyBatch();
  let timer: NodeJS.Timeout | null = null;
  let waitForText = options.beforeFirstText;

  const flush = () => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (isEmptyBatch(batch)) return;
    const ready = batch;
    batch = emptyBatch();
    options.onBatch(ready);
  };

  try {
    while (true) {
      const step = await events.next();
      if (step.done) {
        flush();
        return step.value;
      }
      addEvent(batch, step.value);
      if (waitForText && step.value.type === 'text') {
        const wait = waitForText;
        waitForText = undefined;
        await wait();
      }
      if (batch.text.length + batch.reasoning.length >= MAX_BATCH_CHARS) {
        flush();
        await new Promise((resolve) => setTimeout(resolve, batchMs));
        continue;
      }
      timer ??= setTimeout(flush, batchMs);
    }
  } finally {
    // Also on a throw: what arrived before the failure is still shown.
    flush();
  }
}
