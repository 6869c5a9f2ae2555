import { formatCost } from '../protocol/cost.js';
import { EventEmitter } from 'node:events';
import type { TurnOutcome } from '../session/types.js';
import { resultObject } from './json.js';
import { writeWithBackpressure, type OutputSink } from './output.js';
import { jsonText } from './json-text.js';
import { guardStream, type GuardedStream } from './terminal-stream.js';

// Compare-mode output for scripts (SPEC §11). Piped: each answer whole, in the order given, after a
// line `== <model> ==`: the first model streams straight through, the others wait in memory until
// every model before them is done. --json: one array in the order given, with timings.

type Target = 'out' | 'err';

/**
 * The stdout and stderr of one model, shaped like the Writables the pipe renderer writes to. While
 * the model is not yet "on air" everything it writes is queued, stdout and stderr in one queue so
 * an answer and its reasoning or error keep their order.
 */
class ModelOutput {
  readonly out: Lane;
  readonly err: Lane;
  private readonly queue: Array<[Target, string]> = [];
  private live = false;
  private flushing = false;
  finished = false;

  constructor(private readonly streams: Record<Target, GuardedStream>) {
    this.out = new Lane(this, 'out');
    this.err = new Lane(this, 'err');
  }

  /** true: written through (or queued); false: the real stream asked us to wait for 'drain'. */
  write(target: Target, text: string): boolean {
    if (!this.live || this.flushing) {
      this.queue.push([target, text]);
      return true;
    }
    return this.streams[target].write(text);
  }

  stream(target: Target): GuardedStream {
    return this.streams[target];
  }

  /** Goes on air: what was queued first, in order, then writes pass straight through. */
  async goLive(): Promise<void> {
    this.live = true;
    this.flushing = true;
    while (this.queue.length > 0) {
      const [target, text] = this.queue.shift()!;
      await writeWithBackpressure(this.streams[target], text);
    }
    this.flushing = false;
  }
}

/** Just enough of a Writable for writeWithBackpressure and the pipe renderer. */
class Lane extends EventEmitter implements OutputSink {
  constructor(
    private readonly owner: ModelOutput,
    private readonly target: Target,
  ) {
    super();
  }

  get destroyed(): boolean {
    return this.owner.stream(this.target).destroyed;
  }

  write(text: string): boolean {
    const ok = this.owner.write(this.target, text);
    if (!ok) {
      const real = this.owner.stream(this.target);
      const relay = () => {
        real.off('drain', relay);
        real.off('close', relay);
        this.emit('drain');
      };
      real.once('drain', relay);
      real.once('close', relay);
    }
    return ok;
  }
}

export interface OrderedOutput {
  /** Model `index`'s stdout and stderr, each guarded as the real stream it stands for. */
  lanes(index: number): { stdout: GuardedStream; stderr: GuardedStream };
  /** Model `index` has written everything (answer, newline, error line). */
  finish(index: number): Promise<void>;
}

export function createOrderedOutput(stdout: GuardedStream, stderr: GuardedStream, names: readonly string[]): OrderedOutput {
  const outputs = names.map(() => new ModelOutput({ out: stdout, err: stderr }));
  // A lane's own guard holds a sequence split across its pieces; the real streams' guards see whole ones.
  const lanes = outputs.map((output) => ({ stdout: guardStream(output.out, stdout.terminal), stderr: guardStream(output.err, stderr.terminal) }));
  let onAir = 0;
  // Switching models is serialised: two finishing at once must not put two headers on air.
  let switching: Promise<void> = Promise.resolve();
  const putOnAir = async (index: number) => {
    await writeWithBackpressure(stdout, `== ${names[index]} ==\n`);
    await outputs[index].goLive();
  };
  const first = putOnAir(0);

  return {
    lanes(index) {
      return lanes[index];
    },
    finish(index) {
      outputs[index].finished = true;
      switching = switching.then(async () => {
        await first;
        while (onAir < outputs.length && outputs[onAir].finished) {
          onAir++;
          if (onAir < outputs.length) await putOnAir(onAir);
        }
      });
      return switching;
    },
  };
}

/** `--json` in compare mode: the section-4 objects in the order given, each with its timings. */
export async function writeCompareJson(stdout: GuardedStream, outcomes: readonly TurnOutcome[]): Promise<void> {
  const array = outcomes.map((outcome) => ({
    ...resultObject(outcome),
    timings: { first_token_ms: outcome.timings.firstTokenMs, total_ms: outcome.timings.totalMs },
  }));
  await writeWithBackpressure(stdout, `${jsonText(array)}\n`);
}

export interface SummaryRow {
  model: string;
  firstTokenMs: number | null;
  totalS: number;
  outputTokens: number | null;
  tokensPerS: number | null;
  /** SPEC §16: `$0.0042`, `~$0.0042` from prices, `–` unknown. */
  cost: string;
  finish: string;
}

/** The TTY summary (SPEC §11): tokens/s is output tokens over the whole request time. */
export function summaryRows(names: readonly string[], outcomes: readonly TurnOutcome[]): SummaryRow[] {
  return outcomes.map((outcome, index) => {
    const totalS = outcome.timings.totalMs / 1000;
    const outputTokens = outcome.result.usage.output_tokens;
    return {
      model: names[index],
      firstTokenMs: outcome.timings.firstTokenMs,
      totalS,
      outputTokens,
      tokensPerS: outputTokens !== null && totalS > 0 ? outputTokens / totalS : null,
      cost: outcome.result.cost ? formatCost(outcome.result.cost) : '–',
      finish: outcome.status === 'complete' ? (outcome.result.finish_reason ?? 'stop') : outcome.status === 'cancelled' ? 'cancelled' : `error (exit ${outcome.error?.exitCode ?? '?'})`,
    };
  });
}

/** Aligned text lines: model left, numbers right, `–` where the gateway did not say. */
export function formatSummaryTable(rows: readonly SummaryRow[]): string[] {
  const header = ['model', 'first token ms', 'total s', 'tokens', 'tokens/s', 'cost', 'finish'];
  const cells = rows.map((row) => [
    row.model,
    row.firstTokenMs === null ? '–' : String(row.firstTokenMs),
    row.totalS.toFixed(2),
    row.outputTokens === null ? '–' : String(row.outputTokens),
    row.tokensPerS === null ? '–' : row.tokensPerS.toFixed(1),
    row.cost,
    row.finish,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column].length)));
  const line = (cell: string[]) =>
    cell
      .map((text, column) => (column === 0 || column === cell.length - 1 ? text.padEnd(widths[column]) : text.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}
