import type { ChatEvent } from '../../protocol/events.js';
import type { TurnOutcome } from '../../session/types.js';
import { addEvent, emptyBatch, isEmptyBatch, type DeltaBatch } from './delta-batch.js';

export const BATCH_MS = 30;

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
      timer ??= setTimeout(flush, batchMs);
    }
  } finally {
    // Also on a throw: what arrived before the failure is still shown.
    flush();
  }
}
