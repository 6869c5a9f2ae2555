import { UsageLedger } from '../../session/ledger.js';
import { cachedPrices } from '../../session/models-cache.js';
import { runBudget } from '../run-budget.js';
import type { ToolDefinition } from '../../protocol/events.js';
import type { Prices } from '../../protocol/cost.js';
import { setMaxListeners } from 'node:events';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { createReadStream, statSync } from 'node:fs';
import { lockFile, type FileLock } from '../../storage/file-lock.js';
import { storageError, StorageError } from '../../storage/storage-error.js';
import { resolve } from 'node:path';
import { ExitCode, UsageError, type ExitCodeValue } from '../../exit-codes.js';
import { openConfigStore } from '../../config/store.js';
import type { ConfigFile } from '../../config/keys.js';
import { BatchLineReader, checkBatchInput } from '../../session/batch-input.js';
import { CompleteIds, readResumeState, type ResumeState } from '../../session/batch-resume.js';
import { drain, runBatch } from '../../session/batch.js';
import { openAttachRoot } from '../../session/attach-root.js';
import { RateLimiter } from '../../session/rate-limiter.js';
import { openConversation } from '../../session/conversation.js';
import { wireTools } from '../../tools/definitions.js';
import { openRunTools } from '../run-tools.js';
import { ConversationStore } from '../../session/conversation-store.js';
import { dataDir } from '../../session/paths.js';
import { ConnectionPool, plainHttpWarning } from '../../transport/http.js';
import { tuneV8ForStreaming } from '../../transport/v8-flags.js';
import { createBatchProgress, fileSink, streamSink, type BatchSink } from '../../render/batch.js';
import { connectionFrom, rememberFacts, resolveApiKey, type Io } from '../context.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import type { LearnedFacts } from '../../client/chat-stream.js';
import type { BatchOptions } from '../flags.js';
import { BatchLines, lineSessionSettings } from './batch-lines.js';

/** A regular file can be read twice (check, then send); a pipe or stdin is read once. */
function inputKind(input: string): 'stdin' | 'file' | 'stream' {
  if (input === '-') return 'stdin';
  let stat;
  try {
    stat = statSync(input);
  } catch (error) {
    throw new UsageError(`batch: cannot read ${input}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (stat.isDirectory()) throw new UsageError(`batch: ${input} is a directory; expected a JSONL file or - for stdin`);
  return stat.isFile() ? 'file' : 'stream';
}

function openInput(input: string, io: Io): AsyncIterable<Buffer | string> {
  return input === '-' ? io.stdin : createReadStream(input);
}

/**
 * A batch is one long loop of short-lived requests. With V8's default sizing the young generation
 * doubles up to 16 MiB semi-spaces and the old one grows by a multiple of the live data, so RSS
 * climbed from 65 to ~125 MiB over 20 000 lines while the live data stayed near 10 MiB. Keeping the
 * young generation at its first size and growing the old one 20 % at a time holds it flat (SPEC
 * §10); both flags are read by V8 as the heap grows, so setting them here (after start-up) works.
 * A local batch then lets the young generation grow once (growYoungGenerationOnce).
 *
 * The old generation still sat ~7 MiB above its live data: V8 lets it grow at least 8 MiB past the
 * live size before it marks (a floor the growing percent does not lower), and the requests in flight
 * outlive scavenges, so promoted request state fills that room again and again. Starting the
 * concurrent marking 40 % of the way to that limit collects at ~live + 3.5 MiB instead (issue 19,
 * docs/benchmarks.md: 100 000 lines 72–73 → 66.4–68.9 MiB locally, remote 68–70.5 → 63.5–66 MiB),
 * with about twice the mark-compacts and no CPU change beyond the noise. Read each time V8 checks its
 * limits, so setting it here works too.
 *
 * Any flag set at run time changes V8's flag hash, under which it accepts a code cache: a chunk or a
 * built-in loaded after the change is compiled from source (src/transport/v8-flags.ts). So these are set
 * once all a batch loads is loaded (undici too, which its first request would load), before the input is
 * read, together with the streaming flags of that first request, and put back with them at exit by
 * bin/code-cache.js. Set apart at the start, every batch run compiled undici, the batch's chunks and
 * Node's fs streams from source and wrote ~0.7 MB of caches at exit that the next start rejected again
 * (docs/benchmarks.md, issue 19).
 */
async function keepHeapFlat(): Promise<void> {
  await import('../../transport/undici-route.js');
  tuneV8ForStreaming({
    // Stryker disable next-line ArrayDeclaration,StringLiteral: V8 memory flags; no test can observe them
    set: ['--semi-space-growth-factor=1', '--heap-growing-percent=20', '--incremental-marking-hard-trigger=40'],
    // V8's defaults (node --v8-options), so that the flag hash can be put back at exit.
    // Stryker disable next-line ArrayDeclaration,StringLiteral: as above; a wrong default only costs the cache at exit
    defaults: ['--semi-space-growth-factor=2', '--heap-growing-percent=0', '--incremental-marking-hard-trigger=0'],
    // What a batch compiles is not what a one-shot's start needs (its streamed answer's decoding and output).
    replaceable: true,
  });
}

/**
 * The young generation's semi-space a local batch grows to. At V8's first 1 MiB, the 16 requests in
 * flight outlive two scavenges (one every ~13 lines) and are promoted, and the collector took a
 * sixth of a batch's CPU; at 2 MiB most of them die young (2000 lines: 190 → 92 scavenges, client
 * CPU −9 %, peak RSS within 1 MiB; docs/benchmarks.md).
 */
const BATCH_SEMI_SPACE_BYTES = 2 * 1024 * 1024;

/**
 * Lets V8 double the young generation's first 1 MiB semi-space once, to BATCH_SEMI_SPACE_BYTES, and no
 * further (its size cannot be set after start-up, only its growth). A doubling needs as much data as
 * the semi-space holds to survive scavenges first (hundreds of lines), so a check every 32 completed
 * lines stops it in time. Returns that check.
 */
function growYoungGenerationOnce(): () => void {
  let capped = false;
  let lines = 0;
  const check = (): void => {
    if (capped || lines++ % 32 !== 0 || semiSpaceBytes() <= BATCH_SEMI_SPACE_BYTES / 2) return;
    capped = true;
    setFlagsFromString('--semi-space-growth-factor=1');
  };
  check();
  if (!capped) setFlagsFromString('--semi-space-growth-factor=2');
  return check;
}

/** The young generation's current semi-space (V8's `space_size` counts both halves, and not at once). */
function semiSpaceBytes(): number {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return young ? young.space_used_size + young.space_available_size : 0;
}

/** `--output`, opened for appending before anything is sent: a bad path is one line (exit 2), not a crash. */
export function openOutput(path: string, endsMidLine: boolean, gatherChars = 0): BatchSink {
  try {
    return fileSink(path, endsMidLine, gatherChars);
  } catch (error) {
    const failure = storageError(error, '--output: cannot write', path);
    if (failure instanceof StorageError) throw failure;
    throw new UsageError(`--output: cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Held for the whole run, so a second batch on the same --output refuses at once instead of sending
 * every prompt again (resume reads the file only at the start). A run killed with SIGKILL leaves the
 * lock behind; the next run sees its pid is gone and takes it over. An output that is not a regular
 * file (a pipe, /dev/stdout) is not resumed and needs none; a directory that cannot hold the lock
 * file (appending to a file in a directory we may not write) is a warning, not a refusal.
 */
function lockOutput(path: string): { lock: FileLock | null; warning?: string } {
  try {
    if (!statSync(path).isFile()) return { lock: null };
  } catch {
    // Not there yet: created by this run.
  }
  try {
    const lock = lockFile(resolve(path), {
      waitMs: 0,
      what: `--output ${path}`,
      hint: 'wait for that batch to finish, or write to another --output',
    });
    return { lock };
  } catch (error) {
    if (error instanceof StorageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      // Said once the output itself opened: if it cannot be written either, that is the one line.
      return { lock: null, warning: `warning: cannot lock --output ${path} (${code}): another batch on it at the same time would send its prompts again` };
    }
    throw storageError(error, '--output: cannot write', path);
  }
}

/** `gatechat batch <file|->` (SPEC §13). Returns the exit code. */
export async function runBatchCommand(options: BatchOptions, io: Io): Promise<number> {
  const { chat } = options;
  const env = process.env;
  const file: ConfigFile = await openConfigStore().snapshot();
  if (options.input === '-' && chat.attach.includes('-')) throw new UsageError('--attach -: stdin holds the batch input; attach a file instead');
  // Until the progress display exists, a warning is a plain stderr line; then it goes above the display.
  let warn: (line: string) => void = (line) => void io.stderr.write(`gatechat: ${sanitizeForTerminal(line)}\n`);
  const attachRoot = openAttachRoot(options.attachRoot);
  const lines = await BatchLines.open(chat, { env, file, stdin: io.stdin, warn: (line) => warn(line), attachRoot });
  const base = lines.defaults;
  if (!base.baseUrl) throw new UsageError('no base URL configured: run: gatechat config set base-url https://your-gateway/v1');

  const kind = inputKind(options.input);
  if (options.output !== undefined && kind !== 'stdin' && resolve(options.output) === resolve(options.input)) {
    throw new UsageError('--output: the same file as the input; the answers would be appended to the prompts');
  }
  if (kind === 'stdin' && io.stdin.isTTY) throw new UsageError('batch -: stdin is a terminal; pipe JSONL into it or pass a file');
  // Made before the heap flags (a file's read stream loads Node's fs streams), read after them.
  const checked = kind === 'file' ? new BatchLineReader(openInput(options.input, io)) : null;
  await keepHeapFlat();
  let total: number | null = null;
  if (checked) {
    // Every line checked before anything is sent, streaming: the file is read twice, never held.
    const check = await checkBatchInput(checked, (item) => lines.check(item));
    if (check.first) {
      const more = check.invalid > 1 ? ` (and ${check.invalid - 1} more malformed line${check.invalid > 2 ? 's' : ''})` : '';
      throw new UsageError(`batch: ${options.input} line ${check.first.line}: ${check.first.message}${more}; nothing was sent`);
    }
    total = check.items;
  }

  const output = options.output ? lockOutput(options.output) : { lock: null };
  try {
    if (options.remote) {
      if (output.warning) io.stderr.write(`gatechat: ${output.warning}\n`);
      const { runRemoteBatch } = await import('./batch-remote.js');
      return await runRemoteBatch(options, io, lines, { ...base, baseUrl: base.baseUrl });
    }
    return await runWithOutput(options, io, lines, { ...base, baseUrl: base.baseUrl }, total, {
      lockWarning: output.warning,
      warnAbove: (progressWarn) => {
        warn = progressWarn;
      },
    });
  } finally {
    output.lock?.release();
  }
}

async function runWithOutput(
  options: BatchOptions,
  io: Io,
  lines: BatchLines,
  base: BatchLines['defaults'] & { baseUrl: string },
  total: number | null,
  notes: { lockWarning: string | undefined; warnAbove(warn: (line: string) => void): void },
): Promise<number> {
  const { chat } = options;
  const resume: ResumeState = options.output
    ? await readResumeState(options.output)
    : { complete: new CompleteIds(), endsMidLine: false, unreadable: 0 };
  const sink = options.output ? openOutput(options.output, resume.endsMidLine) : streamSink(io.stdout);
  if (notes.lockWarning) io.stderr.write(`gatechat: ${notes.lockWarning}\n`);

  const heapCheck = growYoungGenerationOnce();
  const limiter = new RateLimiter(options.concurrency);
  // The key command (api-key-cmd) runs once, after the input was checked: never for a malformed file.
  const conn = connectionFrom(await resolveApiKey({ ...base, baseUrl: base.baseUrl }));
  const pool = new ConnectionPool(conn);
  conn.pool = pool;
  conn.gate = limiter;

  const live = Boolean(io.stderr.isTTY) && process.env.TERM !== 'dumb';
  const progress = createBatchProgress(io.stderr, { live, total });
  const warn = (line: string) => progress.log(`gatechat: ${sanitizeForTerminal(line)}`);
  // From now on every warning, the line checker's too, goes above the progress display.
  notes.warnAbove(warn);
  // Learned facts (SPEC §11) are recorded once per model, however many lines find them out.
  const learnedModels = new Set<string>();
  const onLearned = (model: string, facts: LearnedFacts) => {
    if (learnedModels.has(model)) return Promise.resolve();
    learnedModels.add(model);
    return rememberFacts(base.profile, model, facts, { warn, log: chat.verbose ? warn : undefined });
  };
  const httpWarning = plainHttpWarning(conn);
  if (httpWarning) warn(httpWarning);
  const store = base.save ? new ConversationStore(dataDir()) : null;
  // SPEC §16: every line's requests go to the ledger under the batch's input; one budget for the run.
  const ledger = base.ledger ? new UsageLedger({ profile: base.profile, batch: options.input }, warn, undefined, { keepOpen: true }) : undefined;
  const budget = await runBudget(base, chat.maxCost);
  // The models cache is a file: read once per model for the run, not once per line (a missing cache
  // threw and caught an ENOENT per line, ~10 % of the client's CPU per prompt). Prices the cache
  // gains while the batch runs apply from the next run, as a config change does.
  const cachedPricesOf = new Map<string, Prices | undefined>();
  const pricesOf = (model: string): Prices | undefined => {
    if (!cachedPricesOf.has(model)) {
      // Bounded: an input naming a different model on every line must not make memory grow.
      if (cachedPricesOf.size >= 256) cachedPricesOf.clear();
      cachedPricesOf.set(model, cachedPrices(conn.baseUrl, model));
    }
    return cachedPricesOf.get(model);
  };

  const controller = new AbortController();
  // Every line in flight listens to it (request, limiter queue): many listeners are expected.
  setMaxListeners(0, controller.signal);
  let interrupted: ExitCodeValue | null = null;
  const onSignal = (code: ExitCodeValue) => () => {
    interrupted ??= code;
    controller.abort();
  };
  const onInt = onSignal(ExitCode.interrupted);
  const onTerm = onSignal(ExitCode.terminated);
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  // A reader of stdout that goes away (| head) ends the batch like Ctrl-C, quietly.
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    controller.abort();
  };
  io.stdout.on('error', onStdoutError);

  // Command tools (SPEC §15): loaded only when a definition can run; batch never prompts.
  const runTools = await openRunTools({ definitions: chat.tools, mcp: chat.mcp, profile: chat.flags.profile, flags: chat.toolLoop, stderr: io.stderr, verbose: chat.verbose });
  const runner = runTools?.runner ?? null;
  const tools = runner ? await import('../tool-loop-session.js') : null;
  // The output cannot take more (disk full): the lines in flight stop, and this is the error.
  const outputFailed = (error: unknown): never => {
    controller.abort();
    throw error;
  };
  try {
    const summary = await runBatch({
      lines: new BatchLineReader(openInput(options.input, io)),
      skip: resume.complete,
      concurrency: options.concurrency,
      precheck: (item) => lines.problemOf(item),
      // A promise of the outcome, not a generator of events: nobody looks at a batch line's events.
      async send(item, signal) {
        const prepared = lines.prepare(item);
        const { settings, attachments, answerSchema } = prepared instanceof Promise ? await prepared : prepared;
        const conversation = openConversation({
          conn,
          settings: lineSessionSettings(item, settings),
          maxTokensField: settings.maxTokensField,
          tools: withRunTools(chat.tools && wireTools(chat.tools), runTools?.offered),
          answerSchema,
          store,
          record: base.save,
          // Without tools only the outcome matters; the tool loop reads the calls from the events.
          quiet: !runner,
          pricesFor: (model) => (model === settings.model ? settings.prices : undefined) ?? pricesOf(model),
          ledger,
          budget,
          onLearned,
          log: chat.verbose ? (line) => warn(`[${String(item.id)}] ${line}`) : undefined,
          warn: (line) => warn(`[${String(item.id)}] ${line}`),
          onRetry: chat.verbose
            ? ({ attempt, delayMs, reason }) => warn(`[${String(item.id)}] ${reason}; retry ${attempt} of ${conn.retries} in ${(delayMs / 1000).toFixed(1)} s`)
            : undefined,
        });
        const first = conversation.send(item.prompt, signal, attachments);
        if (!runner || !tools) return drain(first);
        return drain(tools.runBatchTools(conversation, first, signal, { runner, flags: runTools?.flags ?? chat.toolLoop, warn: (line) => warn(`[${String(item.id)}] ${line}`) }));
      },
      write: (record) => {
        heapCheck();
        // The line's ledger record first (see UsageLedger.flush): an output file is what a rerun trusts.
        // stdout's lines wait for the end of the turn (streamSink), after the ledger's own flush.
        if (options.output) ledger?.flush();
        try {
          // A promise only when stdout's reader is behind (see BatchSink): no async level per line.
          return sink.write(record)?.catch(outputFailed);
        } catch (error) {
          return outputFailed(error);
        }
      },
      signal: controller.signal,
      // Stopped without a signal: the reader of stdout went away (| head), its choice, not a failure.
      interruptedCode: () => interrupted ?? ExitCode.ok,
      onProgress: (counts) => progress.update(counts),
      budget,
    });
    // The last lines out before the summary line on stderr, their ledger records before them.
    ledger?.flush();
    sink.close();
    progress.finish(summary);
    return summary.exitCode;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    io.stdout.off('error', onStdoutError);
    ledger?.close();
    sink.close();
    pool.close();
    await runner?.close();
  }
}

/** --tools definitions and the run's MCP tools, as each line's request offers them. */
function withRunTools(definitions: ToolDefinition[] | undefined, offered: ToolDefinition[] | undefined): ToolDefinition[] | undefined {
  return offered?.length ? [...(definitions ?? []), ...offered] : definitions;
}
