import { createReadStream, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExitCode, GatechatError, UsageError, type ExitCodeValue } from '../../exit-codes.js';
import { BatchApi, type RemoteBatch } from '../../client/batch-api.js';
import { openConfigStore } from '../../config/store.js';
import { resolveSettings, type Settings } from '../../config/settings.js';
import { idKey, readLines, type BatchItem } from '../../session/batch-input.js';
import { CompleteIds, readResumeState, type IdKeys } from '../../session/batch-resume.js';
import { LineBits } from '../../session/line-bits.js';
import { parseCustomId } from '../../session/batch-custom-id.js';
import { BATCH_LIMITS, ENVELOPE_BYTES, planBatches } from '../../session/batch-remote-plan.js';
import { outcomeOf, parseResultLine } from '../../session/batch-remote-results.js';
import { readRemoteState, removeRemoteState, statePathFor, writeRemoteState, type RemoteState, type SavedBatch } from '../../session/batch-remote-state.js';
import type { BatchSummary } from '../../session/batch.js';
import type { TurnOutcome } from '../../session/types.js';
import type { Api } from '../../protocol/events.js';
import { ResultAccumulator } from '../../protocol/accumulate.js';
import { isAbortError, plainHttpWarning, type Connection } from '../../transport/http.js';
import { secretsOf } from '../../transport/headers.js';
import { wireTools } from '../../tools/definitions.js';
import { summaryText } from '../../render/batch.js';
import { createRemoteProgress, remoteProgressText, type RemoteProgress } from '../../render/batch-remote.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import type { BatchSink } from '../../render/batch.js';
import { connectionFrom, resolveApiKey, type Io } from '../context.js';
import type { BatchOptions } from '../flags.js';
import type { BatchLines } from './batch-lines.js';
import { openOutput } from './batch.js';
import { interruptOnSignals } from '../one-shot.js';
import { RemoteRequests } from './batch-remote-requests.js';

/** Polling starts soon (a small batch may end in seconds) and backs off to once a minute (most take hours). */
const POLL_FIRST_MS = 250;
const POLL_GROWTH = 1.5;
const POLL_MAX_MS = 60_000;
/** Polls in a row that may fail (5xx, 429, network) before waiting is given up: the batch runs on regardless. */
const MAX_POLL_FAILURES = 10;
/** A result line may hold a long answer (a local batch takes up to 64 MiB of one). */
const MAX_RESULT_LINE = 64 * 1024 * 1024;
/**
 * Result lines are written to --output this many characters at a time: they come thousands at once
 * and stay on the gateway until the batch is saved as collected (after a flush), so a run stopped
 * before writes them again (render/batch.ts fileSink says what one write per line cost).
 */
const RESULT_GATHER_CHARS = 64 * 1024;

const RERUN_HINT = 'rerun the same command to collect the results';

/** The exit code of a run: the first failed line by input order decides, as in a local batch (SPEC §13). */
class RemoteTally {
  readonly counts = { done: 0, complete: 0, failed: 0, cancelled: 0, invalid: 0, skipped: 0 };
  private first: { line: number; id: string | number; code: ExitCodeValue; message: string } | null = null;

  record(item: BatchItem, outcome: TurnOutcome): void {
    this.counts.done++;
    const failed = outcome.status !== 'complete' || outcome.error !== undefined;
    if (!failed) {
      this.counts.complete++;
      return;
    }
    if (outcome.status === 'cancelled') this.counts.cancelled++;
    else this.counts.failed++;
    if (!this.first || item.line < this.first.line) {
      this.first = { line: item.line, id: item.id, code: outcome.error?.exitCode ?? ExitCode.server, message: outcome.error?.message ?? outcome.status };
    }
  }

  summary(elapsedMs: number, interrupted: ExitCodeValue | null): BatchSummary {
    const decidedBy = interrupted === null && this.first ? { line: this.first.line, id: this.first.id, message: this.first.message } : undefined;
    return { ...this.counts, elapsedMs, exitCode: interrupted ?? this.first?.code ?? ExitCode.ok, ...(decidedBy ? { decidedBy } : {}) };
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Ids written to the output from `offset` on (by an earlier run collecting the same batches). */
async function idsWrittenAfter(path: string, offset: number): Promise<CompleteIds> {
  const ids = new CompleteIds();
  if (fileSize(path) <= offset) return ids;
  for await (const line of readLines(createReadStream(path, { start: offset }), Number.MAX_SAFE_INTEGER)) {
    try {
      const id = (JSON.parse(line.text) as { id?: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') ids.add(idKey(id));
    } catch {
      // A torn line: its id is not written.
    }
  }
  return ids;
}

/** A saved state belongs to this command: same gateway (the key goes nowhere else), interface and input. */
function checkState(state: RemoteState, statePath: string, expect: { api: string; baseUrl: string; input?: string }): void {
  if (state.base_url !== expect.baseUrl) {
    throw new UsageError(`${statePath}: its batches are on ${state.base_url}, not on ${expect.baseUrl}; pass --base-url ${state.base_url} to collect them`);
  }
  if (state.api !== expect.api) throw new UsageError(`${statePath}: its batches are on --api ${state.api}; pass --api ${state.api} to collect them`);
  if (expect.input !== undefined && state.input !== expect.input) {
    throw new UsageError(`${statePath}: its batches were submitted from ${state.input}, not ${expect.input}; collect them with that input, or write to another --output`);
  }
}

/** Failures worth polling again for: the batch runs on the gateway whatever a poll answers. */
function transient(error: unknown): boolean {
  return error instanceof GatechatError && (error.exitCode === ExitCode.server || error.exitCode === ExitCode.network || error.exitCode === ExitCode.rateLimited);
}

interface Run {
  options: BatchOptions;
  io: Io;
  lines: BatchLines;
  conn: Connection;
  client: BatchApi;
  requests: RemoteRequests;
  statePath: string;
  progress: RemoteProgress;
  warn: (line: string) => void;
  signal: AbortSignal;
}

/** `gatechat batch <file> --remote --output out.jsonl` (SPEC §19). Returns the exit code. */
export async function runRemoteBatch(options: BatchOptions, io: Io, lines: BatchLines, base: Settings & { baseUrl: string }): Promise<number> {
  // The work here is reading and writing lines, not computing (the gateway's cluster answers): V8's
  // memory-saving mode grows the old space in smaller steps between mark-compacts, so 100 000 lines
  // peak lower (docs/benchmarks.md, issue 19: chat 1.40 → 1.33× the RSS of 100 lines). Read by V8 as
  // the heap grows, so setting it after start-up works, like batch.ts's keepHeapFlat() (whose early
  // marking applies here too: 100 000 lines chat 1.27–1.30 → 1.20–1.22×, messages 1.25–1.26 →
  // 1.17–1.18×; marking earlier still, at 30 %, was no better within the runs' noise).
  // Stryker disable next-line StringLiteral: a V8 memory flag; no test can observe it
  setFlagsFromString('--optimize-for-size');
  const output = options.output!;
  const statePath = statePathFor(output);
  const input = resolve(options.input);
  const api = base.api;
  let state = readRemoteState(statePath);
  const conn = connectionFrom(await resolveApiKey(base));
  if (state) checkState(state, statePath, { api, baseUrl: conn.baseUrl, input });
  if (state?.batches.every((b) => b.collected)) {
    // Killed between writing the last results and removing the file: nothing is left to collect, so
    // this run is a fresh one (the lines not complete are submitted again, as a local resume sends them).
    removeRemoteState(statePath);
    state = null;
  }
  const resume = await readResumeState(output);
  const sink = openOutput(output, resume.endsMidLine, RESULT_GATHER_CHARS);

  const live = Boolean(io.stderr.isTTY) && process.env.TERM !== 'dumb';
  const progress = createRemoteProgress(io.stderr, live);
  const warn = (line: string) => progress.log(`gatechat: ${sanitizeForTerminal(line)}`);
  const httpWarning = plainHttpWarning(conn);
  if (httpWarning) warn(httpWarning);
  const tools = options.chat.tools && wireTools(options.chat.tools);
  const requests = new RemoteRequests(options.input, lines, api, conn, tools);
  const client = new BatchApi(conn, api, options.chat.verbose ? warn : undefined);

  const controller = new AbortController();
  const signals = interruptOnSignals(controller);
  const run: Run = { options, io, lines, conn, client, requests, statePath, progress, warn, signal: controller.signal };
  const started = Date.now();
  const tally = new RemoteTally();
  try {
    // 1. Submit the lines no saved batch holds (all of them, the first time).
    const from = (state?.batches.at(-1)?.last_line ?? 0) + 1;
    tally.counts.skipped = await countComplete(requests, resume.complete);
    const limits = BATCH_LIMITS[api];
    const planned = await planBatches(sizesWithin(requests.sizes(from, resume.complete), limits.bytes - ENVELOPE_BYTES, controller.signal), limits);
    stopOptimizing();
    const resuming = state !== null;
    for (const plan of planned) {
      state ??= { version: 1, api, base_url: conn.baseUrl, input, output_offset: fileSize(output), batches: [] };
      const { batch, inputFileId } = await client.create(requests.upload(plan, resume.complete), controller.signal);
      state.batches.push({ id: batch.id, first_line: plan.first_line, last_line: plan.last_line, requests: plan.requests, ...(inputFileId ? { input_file_id: inputFileId } : {}) });
      saveState(statePath, state, batch.id);
      warn(`batch: submitted ${batch.id}: ${plan.requests} request${plan.requests === 1 ? '' : 's'} (lines ${plan.first_line}-${plan.last_line})`);
    }
    if (state === null) {
      // Everything complete already: nothing to submit or wait for.
      progress.finish(summaryText(tally.summary(Date.now() - started, null)));
      return ExitCode.ok;
    }
    if (options.detach) {
      for (const saved of state.batches) if (!saved.collected) io.stdout.write(`${saved.id}\n`);
      progress.finish(`gatechat: batch: running on the gateway; ${RERUN_HINT}, or see: gatechat batch status ${output}`);
      return ExitCode.ok;
    }

    // 2. Wait for each batch and write its results as it ends.
    const earlier = resuming ? await idsWrittenAfter(output, state.output_offset) : new CompleteIds();
    await collectAll(run, state, { sink, tally, earlier, lines: new LineBits(), complete: resume.complete });
    removeRemoteState(statePath);
    progress.finish(summaryText(tally.summary(Date.now() - started, null)));
    return tally.summary(0, null).exitCode;
  } catch (error) {
    const interrupted = signals.signalExitCode();
    if (interrupted === null || !(controller.signal.aborted || isAbortError(error))) throw error;
    const waiting = state !== null && state.batches.some((b) => !b.collected);
    progress.finish(
      waiting
        ? `gatechat: batch: stopped waiting; the batches keep running on the gateway: ${RERUN_HINT}, or cancel them: gatechat batch cancel ${output}`
        : 'gatechat: batch: stopped before any batch was created; nothing was submitted',
    );
    return interrupted;
  } finally {
    signals.dispose();
    sink.close();
  }
}

/**
 * Once the input is planned, V8 optimises no further function. Planning builds every line's request
 * (the run's hottest code, optimised there); what follows is the same code again (uploads), polling,
 * and JSON.parse/JSON.stringify of the results (built-ins) around a little code per line. Those later
 * TurboFan compiles were mostly functions deoptimised and compiled again, and the results loop
 * compiled on stack (~2 MiB of compiler zone alone): each runs on one of V8's worker threads, whose
 * malloc arena keeps its high-water mark. Measured (docs/benchmarks.md, issue 19, 100 000 lines, chat):
 * peak RSS 63.8–66.6 → 60.3–61.9 MiB (with the gathered result writes), client CPU lower, not higher
 * (the compiles were CPU too). Already optimised functions stay so.
 */
function stopOptimizing(): void {
  // Stryker disable next-line StringLiteral: a V8 flag; no test can observe it
  setFlagsFromString('--no-turbofan');
}

/** A request larger than a whole batch may be can never be sent: refused (exit 2) before anything is. */
async function* sizesWithin(sizes: AsyncIterable<{ line: number; bytes: number }>, max: number, signal: AbortSignal): AsyncGenerator<{ line: number; bytes: number }> {
  for await (const size of sizes) {
    // Ctrl-C while planning a long input: stop reading it (nothing was sent yet).
    signal.throwIfAborted();
    if (size.bytes + 1 > max) throw new UsageError(`batch: line ${size.line}: its request is ${size.bytes} bytes, over a batch's ${max}; nothing was sent`);
    yield size;
  }
}

/** Input lines complete in the output before this run, as a local batch counts its skipped lines. */
async function countComplete(requests: RemoteRequests, complete: IdKeys): Promise<number> {
  if (complete.size === 0) return 0;
  let skipped = 0;
  for await (const item of requests.items(1, Number.MAX_SAFE_INTEGER, new Set())) if (complete.has(idKey(item.id))) skipped++;
  return skipped;
}

function saveState(path: string, state: RemoteState, batchId: string): void {
  try {
    writeRemoteState(path, state);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The batch runs on the gateway whatever happens here: say which, so it can be cancelled by hand.
    throw new GatechatError(`${message}; batch ${batchId} was created on the gateway and is running`, error instanceof GatechatError ? error.exitCode : ExitCode.usage, 'free the space, then cancel it in the gateway console or rerun');
  }
}

interface Collecting {
  sink: BatchSink;
  tally: RemoteTally;
  /** Ids an earlier run, stopped while collecting these batches, wrote already. */
  earlier: IdKeys;
  /** Input lines written by this run. */
  lines: LineBits;
  /** Ids complete before the batches were submitted: never in them. */
  complete: IdKeys;
}

async function collectAll(run: Run, state: RemoteState, collecting: Collecting): Promise<void> {
  let delay = POLL_FIRST_MS;
  let failures = 0;
  const views = new Map<string, RemoteBatch>();
  for (;;) {
    for (const saved of state.batches.filter((b) => !b.collected)) {
      let view: RemoteBatch;
      try {
        view = await run.client.retrieve(saved.id, run.signal);
        failures = 0;
      } catch (error) {
        if (run.signal.aborted || !transient(error) || ++failures >= MAX_POLL_FAILURES) throw error;
        run.warn(`batch: polling ${saved.id}: ${(error as Error).message}; trying again`);
        continue;
      }
      views.set(saved.id, view);
      run.progress.update([...views.values()]);
      if (!view.ended) continue;
      await collect(run, saved, view, collecting);
      saved.collected = true;
      saveState(run.statePath, state, saved.id);
    }
    if (state.batches.every((b) => b.collected)) return;
    await sleep(delay, undefined, { signal: run.signal });
    delay = Math.min(delay * POLL_GROWTH, POLL_MAX_MS);
  }
}

/** Writes one ended batch's results as output lines; lines it has no result for are written as errors. */
async function collect(run: Run, saved: SavedBatch, view: RemoteBatch, collecting: Collecting): Promise<void> {
  const { api } = run.client;
  const written = (item: BatchItem): boolean => collecting.lines.has(item.line) || (collecting.earlier.size > 0 && collecting.earlier.has(idKey(item.id)));
  const write = async (item: BatchItem, outcome: TurnOutcome): Promise<void> => {
    if (written(item)) return;
    collecting.lines.add(item.line);
    await collecting.sink.write({ kind: 'answer', item, outcome });
    collecting.tally.record(item, outcome);
  };
  if (view.errors === undefined) {
    const secrets = secretsOf(run.conn);
    let lookup: Awaited<ReturnType<RemoteRequests['lookup']>> | null = null;
    let foreign = 0;
    for await (const raw of readLines(run.client.results(view, run.signal), MAX_RESULT_LINE)) {
      if (raw.text.trim() === '') continue;
      const parsed = raw.tooLong ? null : parseResultLine(api, raw.text);
      const ref = parsed && parseCustomId(parsed.customId);
      let item: BatchItem | undefined;
      if (ref && ref.fromInput) item = (lookup ??= await run.requests.lookup())(ref);
      else if (ref) item = { line: ref.line, id: ref.id, prompt: '' };
      if (!parsed || !item) {
        foreign++;
        continue;
      }
      const answerSchema = await run.lines.answerSchemaOf(item);
      await write(item, outcomeOf(parsed, api, { secrets, answerSchema }));
    }
    if (foreign) run.warn(`batch: ${saved.id}: ${foreign} result line${foreign === 1 ? '' : 's'} that name no line of ${run.options.input} (ignored)`);
  }
  // Lines of the batch without a result (a batch refused whole, or a result lost): each written with why.
  const why =
    view.errors !== undefined
      ? new GatechatError(`the gateway refused batch ${saved.id} (${view.status}): ${view.errors}`, ExitCode.rejected)
      : new GatechatError(`batch ${saved.id} ended (${view.status}) without a result for this line`, ExitCode.server);
  for await (const item of run.requests.items(saved.first_line, saved.last_line, collecting.complete)) {
    if (written(item)) continue;
    await write(item, { status: 'error', error: why, result: emptyResult(api), timings: { firstTokenMs: null, totalMs: 0 } });
  }
  // Every line of the batch is in the output before it is saved as collected.
  collecting.sink.flush?.();
}

function emptyResult(api: Api): TurnOutcome['result'] {
  return new ResultAccumulator().result({ api, cid: null, outcome: 'error' });
}

/** `gatechat batch status|cancel <output>`: the saved batches as the gateway reports them, or cancelled. */
export async function runRemoteAction(action: 'status' | 'cancel', output: string, options: BatchOptions, io: Io): Promise<number> {
  const statePath = statePathFor(output);
  const state = readRemoteState(statePath);
  if (!state) throw new UsageError(`batch ${action}: no remote batch is saved beside ${output} (${statePath}); submit one with: gatechat batch <file> --remote --output ${output}`);
  const settings = resolveSettings({ flags: { save: false, ...options.chat.flags }, env: process.env, file: await openConfigStore().snapshot() });
  if (!settings.baseUrl) throw new UsageError('no base URL configured: run: gatechat config set base-url https://your-gateway/v1');
  const conn = connectionFrom(await resolveApiKey({ ...settings, baseUrl: settings.baseUrl }));
  checkState(state, statePath, { api: state.api, baseUrl: conn.baseUrl });
  const client = new BatchApi(conn, state.api, options.chat.verbose ? (line) => void io.stderr.write(`gatechat: ${line}\n`) : undefined);
  for (const saved of state.batches) {
    let view = await client.retrieve(saved.id);
    if (action === 'cancel' && !view.ended) view = await client.cancel(saved.id);
    const where = `lines ${saved.first_line}-${saved.last_line}`;
    const note = saved.collected ? ' · results written' : view.ended ? ` · ${RERUN_HINT}` : '';
    io.stdout.write(`${saved.id}\t${remoteProgressText([view], 0).replace(/^batch: /, '').replace(/ · 0 s$/, '')} · ${where}${note}\n`);
  }
  return ExitCode.ok;
}
