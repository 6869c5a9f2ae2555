import type { Attachment, ChatEvent } from '../protocol/events.js';
import { runCompare } from '../session/compare.js';
import type { TurnOutcome } from '../session/types.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { createOrderedOutput, writeCompareJson } from '../render/compare.js';
import { createJsonlRenderer } from '../render/json.js';
import { createPipeRenderer } from '../render/pipe.js';
import type { OneShotRenderer } from '../render/renderer.js';
import { formatError } from './report.js';
import { openSession, readMessage, type Io, type Session } from './context.js';
import type { ChatModeOptions } from './flags.js';
import { interruptOnSignals, stopWhenReaderGoes } from './one-shot.js';
import { useColor } from './terminal.js';
import { guardStream, type GuardedStream } from '../render/terminal-stream.js';

/** A model's ending as one stderr line (none when it simply completed). */
function endingLine(name: string, outcome: TurnOutcome): string | null {
  if (outcome.status === 'cancelled') return `gatechat: [${name}] cancelled; the partial answer was kept`;
  if (outcome.error) return formatError(outcome.error).replace(/^gatechat: /, `gatechat: [${name}] `);
  if (outcome.result.finish_reason === 'length') {
    return `gatechat: [${name}] warning: the answer was cut off at the token limit (finish_reason: length); raise --max-tokens`;
  }
  return null;
}

/**
 * SPEC §11 exit code: 0 when every model completed, else the code of the first failing model in
 * the order given (a signal wins: 130 / 143).
 */
export function compareExitCode(outcomes: readonly TurnOutcome[], signalExit: number | null): number {
  if (signalExit !== null) return signalExit;
  // A complete answer can still fail (--schema: exit 9).
  const failed = outcomes.find((outcome) => outcome.status !== 'complete' || outcome.error !== undefined);
  return failed ? (failed.error?.exitCode ?? ExitCode.interrupted) : ExitCode.ok;
}

/** `gatechat -m A -m B … prompt`: one prompt to every model at once, each on its own conversation. */
export async function runCompareMode(options: ChatModeOptions, promptArgs: string[], io: Io): Promise<number> {
  const names = options.compare!;
  if (options.extract || options.dryRun) {
    throw new UsageError(`${options.extract ? '--extract' : '--dry-run'}: one model at a time (-m was given ${names.length} times)`);
  }
  // Every model's settings are resolved (and refused) before anything is sent.
  const sessions: Session[] = [];
  for (const name of names) sessions.push(await openSession({ ...options, flags: { ...options.flags, model: name } }, io, name));
  const conversations = sessions.map((session) => session.conversation);
  const prompt = await readMessage(options, promptArgs, io, sessions[0]!.conn);

  const controller = new AbortController();
  const signals = interruptOnSignals(controller);
  const readerGone = stopWhenReaderGoes(io.stdout, controller);
  let outcomes: TurnOutcome[];
  try {
    outcomes = await render(names, sessions, prompt, controller.signal, options, io);
  } finally {
    signals.dispose();
  }
  if (readerGone()) return ExitCode.ok;
  const signalExit = signals.signalExitCode();
  if (signalExit !== null) io.stderr.write(`gatechat: ${signalExit === ExitCode.terminated ? 'terminated' : 'interrupted'}; the partial answers were kept\n`);
  return compareExitCode(outcomes, signalExit);
}

async function render(
  names: readonly string[],
  sessions: readonly Session[],
  prompt: { prompt: string; attachments: Attachment[] },
  signal: AbortSignal,
  options: ChatModeOptions,
  io: Io,
): Promise<TurnOutcome[]> {
  const conversations = sessions.map((session) => session.conversation);
  // Each stream sanitised when it is a terminal, whatever the other one is (SPEC §20).
  const stdout = guardStream(io.stdout);
  const stderr = guardStream(io.stderr);
  const reportEnding = (index: number, outcome: TurnOutcome, stderr: GuardedStream) => {
    const line = endingLine(names[index], outcome);
    if (line && outcome.status !== 'cancelled') stderr.write(`${line}\n`);
  };

  if (options.output === 'auto' && io.stdout.isTTY) {
    const { renderCompareTty } = await import('../render/ink/index.js');
    const outcomes = await renderCompareTty({
      names,
      run: (handlers, viewSignal) => runCompare(conversations, prompt, AbortSignal.any([signal, viewSignal]), handlers),
      // Retry notices go into the model's pane: written to stderr they would tear the live panes.
      showRetryNotices: (show) => sessions.forEach((session, index) => session.showRetryNotices((line) => show(index, line))),
      color: useColor(io.stdout),
    });
    outcomes.forEach((outcome, index) => reportEnding(index, outcome, stderr));
    return outcomes;
  }

  if (options.output === 'json') {
    const outcomes = await runCompare(conversations, prompt, signal, { onEvent: () => {}, onDone: () => {} });
    await writeCompareJson(stdout, outcomes);
    outcomes.forEach((outcome, index) => reportEnding(index, outcome, stderr));
    return outcomes;
  }

  if (options.output === 'jsonl') {
    const renderers = names.map((name) => createJsonlRenderer(stdout, { tag: { model: name } }));
    return runCompare(conversations, prompt, signal, {
      onEvent: (index, event) => renderers[index].event(event),
      onDone: async (index, outcome) => {
        await renderers[index].end(outcome);
        reportEnding(index, outcome, stderr);
      },
    });
  }

  // Piped: each answer whole, in the order given, after `== <model> ==`; its error line right after it.
  const ordered = createOrderedOutput(stdout, stderr, names);
  const renderers: OneShotRenderer[] = names.map((_, index) => createPipeRenderer({ ...ordered.lanes(index), showReasoning: options.showReasoning }));
  return runCompare(conversations, prompt, signal, {
    onEvent: (index: number, event: ChatEvent) => renderers[index].event(event),
    onDone: async (index, outcome) => {
      await renderers[index].end(outcome);
      reportEnding(index, outcome, ordered.lanes(index).stderr);
      await ordered.finish(index);
    },
  });
}
