import type { ChatEvent } from '../protocol/events.js';
import type { FinishedTurn, TurnOutcome } from '../session/types.js';
import type { Attachment } from '../protocol/events.js';
import { ExitCode, UsageError, type ExitCodeValue } from '../exit-codes.js';
import { createPipeRenderer } from '../render/pipe.js';
import { createExtractRenderer } from '../render/extract.js';
import { createDocumentRenderer } from '../render/document.js';
import { createJsonRenderer, createJsonlRenderer } from '../render/json.js';
import type { OneShotRenderer } from '../render/renderer.js';
import { formatError } from './report.js';
import { openSession, readMessage, stderrIsTerminal, stdinIsTerminal, stdoutIsTerminal, type Io } from './context.js';
import { describeRequest } from './dry-run.js';
import type { ChatModeOptions } from './flags.js';
import { isDumbTerminal, useColor } from './terminal.js';
import { footerText } from '../render/footer.js';
import { guardStream, type GuardedStream } from '../render/terminal-stream.js';
import { SinkOnFirstUse } from '../render/output.js';
import { openRunTools } from './run-tools.js';
import type { ToolViewHooks } from '../render/ink/approval.js';

/** Aborts the turn on SIGINT / SIGTERM and remembers which, for the exit code (130 / 143). */
export function interruptOnSignals(controller: AbortController): { signalExitCode(): ExitCodeValue | null; dispose(): void } {
  let received: ExitCodeValue | null = null;
  const onInt = () => {
    received ??= ExitCode.interrupted;
    controller.abort();
  };
  const onTerm = () => {
    received ??= ExitCode.terminated;
    controller.abort();
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signalExitCode: () => received,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/**
 * `gatechat … | head`: when the reader goes away (EPIPE), stop the answer quietly, like other CLI
 * tools. Returns whether that happened.
 */
export function stopWhenReaderGoes(stdout: NodeJS.WriteStream, controller: AbortController): () => boolean {
  let gone = false;
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    gone = true;
    controller.abort();
  });
  return () => gone;
}

async function drive(events: AsyncGenerator<ChatEvent, TurnOutcome, void>, renderer: OneShotRenderer): Promise<TurnOutcome> {
  while (true) {
    const step = await events.next();
    if (step.done) {
      await renderer.end(step.value);
      return step.value;
    }
    await renderer.event(step.value);
  }
}

/** One turn, rendered for scripts (pipe, --json, --jsonl) or for a person (Ink on a TTY). */
export async function runOneShot(options: ChatModeOptions, promptArgs: string[], io: Io): Promise<number> {
  // Settings first: a missing base URL fails at once instead of after reading a large stdin.
  const { conversation, conn, showRetryNotices } = await openSession(options, io);
  // --retry (SPEC §17): the saved last prompt, not a new one (stdin is not read).
  const { prompt, attachments } = options.retry ? lastPrompt(conversation, promptArgs) : await readMessage(options, promptArgs, io, conn);
  if (options.dryRun) {
    io.stdout.write(describeRequest(conn, conversation.settings.api, conversation.request(prompt, attachments)));
    return ExitCode.ok;
  }

  // Command tools (SPEC §15): the loop's code is loaded only when a definition can run.
  const runTools = await openRunTools({
    definitions: options.tools,
    mcp: options.mcp,
    profile: options.flags.profile,
    flags: options.toolLoop,
    // Read only when a tool runs: a plain one-shot does not build stderr (std-streams.ts).
    get stderr() {
      return io.stderr;
    },
    verbose: options.verbose,
    conn,
  });
  const runner = runTools?.runner ?? null;
  if (runTools) conversation.offerRunTools(runTools.offered);
  const controller = new AbortController();
  const signals = interruptOnSignals(controller);
  // stdout and stderr are built when first needed, never before the request (std-streams.ts); a run with
  // nothing to say does not build stderr. stdout gets the reader's EPIPE listener as it is built, before
  // anything is written to it.
  let readerGone = () => false;
  const stdoutSink = new SinkOnFirstUse(() => {
    const stream = io.stdout;
    readerGone = stopWhenReaderGoes(stream, controller);
    return stream;
  });
  // Each stream sanitised when it is a terminal, whatever the other one is (SPEC §20); the descriptors say.
  const stdout = guardStream(stdoutSink, stdoutIsTerminal(io));
  const stderr = guardStream(new SinkOnFirstUse(() => io.stderr), stderrIsTerminal(io));
  let outcome: TurnOutcome;
  const liveView = options.output === 'auto' && !options.extract && stdoutIsTerminal(io) && !isDumbTerminal();
  // Ink writes to process.stdout itself: built now, with the listener. Else built while the gateway works
  // on the request (a direct request: once it is written), or at the first write.
  if (liveView) stdoutSink.open();
  else conn.onRequestWritten = () => void stdoutSink.open();
  const tools = runner ? await import('./tool-loop-session.js') : null;
  // The live view lends the loop its prompt and its way of printing lines (writing to the terminal
  // behind Ink's back would tear its frame); bound when the view mounts, before the first request.
  let viewTools: ToolViewHooks | null = null;
  // Every request of the prompt: the first, and with runnable tools the loop's follow-ups.
  const turn = (signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> => {
    // -m with --retry keeps the answer it replaces beside the new one; without, it replaces it (like /retry).
    const first = options.retry ? conversation.retry(signal, { keep: options.flags.model !== undefined })! : conversation.send(prompt, signal, attachments);
    if (!runner || !tools) return first;
    return tools.runOneShotTools(conversation, first, signal, {
      runner,
      flags: runTools?.flags ?? options.toolLoop,
      stderr,
      jsonl: options.output === 'jsonl' ? stdout : undefined,
      // SPEC §15: a terminal's user approves each call: on stderr when stdin and stderr are terminals,
      // in the live view when stdout is one too (it owns the keyboard then). No keys: --allow decides.
      terminal: stdinIsTerminal(io) && stderrIsTerminal(io) && !liveView ? (io.stdin as NodeJS.ReadStream) : undefined,
      ask: liveView && stdinIsTerminal(io) ? (call, source) => viewTools!.ask(call, source) : undefined,
      say: liveView ? (line) => (viewTools ? viewTools.say(line) : void stderr.write(`${line}\n`)) : undefined,
      quiet: options.quiet,
      verbose: options.verbose,
    });
  };
  try {
    if (options.output === 'auto' && options.extract) {
      const renderer = createExtractRenderer({ stdout, stderr, showReasoning: options.showReasoning });
      outcome = await drive(turn(controller.signal), renderer);
    } else if (liveView) {
      const { renderOneShotTty } = await import('../render/ink/index.js');
      outcome = await renderOneShotTty({
        // The Ink view owns Ctrl-C in raw mode; signals from outside still abort through controller.
        run: (signal) => turn(AbortSignal.any([signal, controller.signal])),
        model: conversation.settings.model,
        api: conversation.settings.api,
        color: useColor(io.stdout),
        showReasoning: options.showReasoning,
        quiet: options.quiet,
        showRetryNotices,
        bindToolHooks: (hooks) => {
          viewTools = hooks;
        },
      });
    } else {
      const renderer =
        options.output === 'json'
          ? createJsonRenderer(stdout, { extract: options.extract })
          : options.output === 'jsonl'
            ? createJsonlRenderer(stdout, { extract: options.extract })
            : options.schema
              ? createDocumentRenderer({ stdout, stderr, showReasoning: options.showReasoning })
              : createPipeRenderer({ stdout, stderr, showReasoning: options.showReasoning });
      outcome = await drive(turn(controller.signal), renderer);
      // TERM=dumb on a terminal: the footer the live view would show, as one plain line.
      if (options.output === 'auto' && stdoutIsTerminal(io) && !options.quiet) {
        stderr.write(`${footerText(outcome, conversation.settings.model, conversation.settings.api)}\n`);
      }
    }
  } finally {
    signals.dispose();
    await runner?.close();
  }
  if (tools && 'stepLimitReached' in outcome && outcome.stepLimitReached && !readerGone()) {
    stderr.write(`${tools.stepLimitLine(options.toolLoop.maxSteps)}\n`);
    return ExitCode.maxSteps;
  }
  // The partial answer is recorded (as cancelled); the reader chose to stop, so this is not a failure.
  if (readerGone()) return ExitCode.ok;
  return finishTurn(outcome, signals.signalExitCode(), { stderr });
}

/** --retry: the prompt of the continued conversation's last turn; a prompt given too is a usage error. */
function lastPrompt(conversation: { turns: ReadonlyArray<FinishedTurn> }, promptArgs: string[]): { prompt: string; attachments: Attachment[] } {
  if (promptArgs.length > 0) throw new UsageError('--retry: asks the last prompt again; give no new prompt (or drop --retry)');
  const last = conversation.turns[conversation.turns.length - 1];
  if (!last) throw new UsageError('--retry: the conversation has no prompt to ask again');
  return { prompt: last.prompt, attachments: last.attachments ?? [] };
}

function finishTurn(outcome: TurnOutcome, signalExit: ExitCodeValue | null, io: { stderr: GuardedStream }): number {
  if (outcome.status === 'cancelled') {
    io.stderr.write(`gatechat: ${signalExit === ExitCode.terminated ? 'terminated' : 'interrupted'}; the partial answer was kept\n`);
    return signalExit ?? ExitCode.interrupted;
  }
  if (outcome.error) {
    io.stderr.write(`${formatError(outcome.error)}\n`);
    return outcome.error.exitCode;
  }
  if (outcome.result.finish_reason === 'length') {
    io.stderr.write('gatechat: warning: the answer was cut off at the token limit (finish_reason: length); raise --max-tokens\n');
  }
  return ExitCode.ok;
}
