import type { ChatEvent, ToolCall } from '../protocol/events.js';
import type { Conversation, TurnOutcome } from '../session/types.js';
import type { ToolRunner } from '../tools/runner.js';
import type { ToolLoopFlags } from './flags.js';
import { runToolLoop, formatSeconds, type Approval, type ToolLoopOutcome, type ToolResultMeta } from '../tools/loop.js';
import { decide } from '../tools/policy.js';
import { writeWithBackpressure } from '../render/output.js';
import { jsonText } from '../render/json-text.js';
import type { GuardedStream } from '../render/terminal-stream.js';
import { ExitCode, GatechatError } from '../exit-codes.js';

// One-shot's side of the tool loop (SPEC §15): approval by policy (and by key on a terminal), one
// display line per call on stderr, `--jsonl` tool_result events. Reached only by dynamic import.

export interface OneShotToolOptions {
  runner: ToolRunner;
  flags: ToolLoopFlags;
  stderr: GuardedStream;
  /** --jsonl: tool_result events go here, between the model's events. */
  jsonl?: GuardedStream;
  /** Asks the user about one call (a terminal); absent: scripts, which never prompt. */
  ask?: (call: ToolCall, source: string) => Promise<'y' | 'a' | 'n' | 'esc'>;
  /** Prints one line of the loop's (a call, its outcome, a denial); default: a line on stderr. */
  say?: (line: string) => void;
  quiet: boolean;
  verbose: boolean;
  /** The terminal to ask on (stdin and stderr are terminals, no live view draws): else scripts' rules. */
  terminal?: NodeJS.ReadStream;
}

/** Long argument values folded, so one call stays one line. */
export function describeArguments(args: unknown, fold = 80): string {
  const text = typeof args === 'string' ? args : JSON.stringify(args ?? {}, (_key, value: unknown) =>
    typeof value === 'string' && value.length > fold ? `${value.slice(0, fold)}… (${value.length} characters)` : value,
  );
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `✓ 0.2 s · 3.1 KB`, `✗ timed out after 60 s`, `⊘ denied` */
export function outcomeLine(meta: ToolResultMeta, text: string): string {
  if (meta.denied) return '⊘ denied';
  if (meta.ok) return `✓ ${(meta.duration_ms / 1000).toFixed(1)} s · ${formatBytes(meta.bytes)}`;
  const first = text.split('\n')[0] ?? '';
  return `✗ ${first.slice(0, 200)}`;
}

export function runOneShotTools(
  conversation: Conversation,
  first: AsyncGenerator<ChatEvent, TurnOutcome, void>,
  signal: AbortSignal,
  options: OneShotToolOptions,
): AsyncGenerator<ChatEvent, ToolLoopOutcome, void> {
  const { stderr } = options;
  const sessionAllowed = new Set<string>();
  const ask = options.ask ?? (options.terminal ? terminalAsk(options.terminal, stderr) : undefined);
  const say = options.say ?? ((line: string): void => void stderr.writeLine(line));
  return runToolLoop(conversation, first, signal, {
    runner: options.runner,
    maxSteps: options.flags.maxSteps,
    timeoutMs: options.flags.timeoutMs,
    outputLimit: options.flags.outputLimit,
    async approve(call, tool): Promise<Approval> {
      const decision = decide(call.name, { allow: options.flags.allow, interactive: ask !== undefined, sessionAllowed });
      if (decision === 'run') return 'run';
      if (decision === 'deny') {
        say(`gatechat: denied ${call.name} (not allowed; run it with --allow '${call.name}')`);
        return 'deny';
      }
      const key = await ask!(call, tool.source);
      if (key === 'a') sessionAllowed.add(call.name);
      return key === 'esc' ? 'cancel' : key === 'n' ? 'deny' : 'run';
    },
    onCall(call) {
      if (!options.quiet) say(`⚙ ${call.name} ${describeArguments(call.arguments)}`);
    },
    async onResult(meta, entry) {
      if (!options.quiet) say(`  ${meta.denied ? `${entry.name} ` : ''}${outcomeLine(meta, entry.text)}`);
      if (options.verbose && !meta.denied) say(entry.text);
      if (options.jsonl) await writeWithBackpressure(options.jsonl, `${jsonText({ type: 'tool_result', ...meta })}\n`);
    },
  });
}

export function stepLimitLine(maxSteps: number): string {
  return `gatechat: stopped after ${maxSteps} model request${maxSteps === 1 ? '' : 's'} (--max-steps ${maxSteps}) before a final answer`;
}

export { formatSeconds };

/**
 * Batch's side of the loop: never prompts (only --allow runs a call), denials and the step limit said
 * through `warn` (prefixed with the line's id); a line stopped at --max-steps ends as an error, exit 10.
 */
export async function* runBatchTools(
  conversation: Conversation,
  first: AsyncGenerator<ChatEvent, TurnOutcome, void>,
  signal: AbortSignal,
  options: { runner: ToolRunner; flags: ToolLoopFlags; warn: (line: string) => void },
): AsyncGenerator<ChatEvent, TurnOutcome, void> {
  const outcome = yield* runToolLoop(conversation, first, signal, {
    runner: options.runner,
    maxSteps: options.flags.maxSteps,
    timeoutMs: options.flags.timeoutMs,
    outputLimit: options.flags.outputLimit,
    async approve(call) {
      if (decide(call.name, { allow: options.flags.allow, interactive: false }) === 'run') return 'run';
      options.warn(`denied ${call.name} (not allowed; run it with --allow '${call.name}')`);
      return 'deny';
    },
  });
  if (!outcome.stepLimitReached) return outcome;
  const line = stepLimitLine(options.flags.maxSteps).replace(/^gatechat: /, '');
  return { ...outcome, status: 'error', error: new GatechatError(line, ExitCode.maxSteps) };
}

/**
 * The approval prompt of a one-shot on a terminal (SPEC §15) when no live view owns the screen: the
 * call (tool, source, formatted sanitised arguments, long values folded) on stderr, then one key from
 * the terminal — y run once · a allow this tool for the session · n deny · Esc (or Ctrl-C) cancel.
 */
export function terminalAsk(stdin: NodeJS.ReadStream, stderr: GuardedStream): (call: ToolCall, source: string) => Promise<'y' | 'a' | 'n' | 'esc'> {
  return (call, source) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}, foldLong, 2);
    stderr.write(`⚙ ${call.name} (${source}) wants to run with\n${args.split('\n').map((line) => `  ${line}`).join('\n')}\n`);
    stderr.write(`  y run once · a allow ${call.name} for this session · n deny · Esc cancel the turn: `);
    return new Promise((resolve) => {
      const wasRaw = stdin.isRaw;
      stdin.setRawMode(true);
      stdin.resume();
      const onData = (chunk: Buffer): void => {
        const key = chunk.toString('utf8');
        const answer = key === 'y' || key === 'Y' ? 'y' : key === 'a' || key === 'A' ? 'a' : key === 'n' || key === 'N' ? 'n' : key === '\x1b' || key === '\x03' ? 'esc' : null;
        if (answer === null) return;
        stdin.off('data', onData);
        stdin.setRawMode(wasRaw);
        stdin.pause();
        stderr.write(`${answer === 'esc' ? 'cancelled' : answer}\n`);
        resolve(answer);
      };
      stdin.on('data', onData);
    });
  };
}

function foldLong(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.length > 200 ? `${value.slice(0, 200)}… (${value.length} characters)` : value;
}

/** The chat's tool loop (SPEC §15): built once per chat, so `a` (allow for the session) lasts the chat. */
export interface ChatToolLoop {
  wrap(
    conversation: Conversation,
    first: AsyncGenerator<ChatEvent, TurnOutcome, void>,
    signal: AbortSignal,
    hooks: { ask(call: ToolCall, source: string): Promise<'y' | 'a' | 'n' | 'esc'>; say(line: string): void },
  ): AsyncGenerator<ChatEvent, TurnOutcome, void>;
  /** `/tools`: one line per tool — name, source, first line of its description, whether it runs without asking. */
  list(): string[];
}

export function chatToolLoop(runner: ToolRunner, flags: ToolLoopFlags): ChatToolLoop {
  const sessionAllowed = new Set<string>();
  return {
    list: () =>
      runner.tools().map((tool) => {
        const allowed = decide(tool.name, { allow: flags.allow, interactive: true, sessionAllowed }) === 'run';
        const about = tool.description?.split('\n')[0] ?? '';
        return `  ${tool.name} (${tool.source})${about ? ` ${about}` : ''} · ${allowed ? 'allowed' : 'asks'}`;
      }),
    async *wrap(conversation, first, signal, hooks) {
      const outcome = yield* runToolLoop(conversation, first, signal, {
        runner,
        maxSteps: flags.maxSteps,
        timeoutMs: flags.timeoutMs,
        outputLimit: flags.outputLimit,
        async approve(call, tool) {
          if (decide(call.name, { allow: flags.allow, interactive: true, sessionAllowed }) === 'run') return 'run';
          const key = await hooks.ask(call, tool.source);
          if (key === 'a') sessionAllowed.add(call.name);
          return key === 'esc' ? 'cancel' : key === 'n' ? 'deny' : 'run';
        },
        onCall: (call) => hooks.say(`⚙ ${call.name} ${describeArguments(call.arguments)}`),
        onResult: (meta, entry) => hooks.say(`  ${meta.denied ? `${entry.name} ` : ''}${outcomeLine(meta, entry.text)}`),
      });
      if (!outcome.stepLimitReached) return outcome;
      return { ...outcome, status: 'error', error: new GatechatError(stepLimitLine(flags.maxSteps).replace(/^gatechat: /, ''), ExitCode.maxSteps) };
    },
  };
}
