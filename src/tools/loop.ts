import type { ChatEvent, ToolCall } from '../protocol/events.js';
import type { Conversation, ToolResultEntry, TurnOutcome } from '../session/types.js';
import type { RunnableTool, ToolRunner } from './runner.js';

// The tool loop (SPEC §15): an answer that calls runnable tools gets each call approved, the approved
// calls run at once, and one follow-up request carries every result in call order; repeated until an
// answer makes no call or --max-steps model requests were made. Front ends (one-shot, chat, batch)
// supply the approval and the display; this module never talks to a terminal.

export const DEFAULT_MAX_STEPS = 10;
export const DEFAULT_TOOL_OUTPUT_LIMIT = 64 * 1024;
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** y / a → run; n or the policy → deny; Esc → cancel the turn. */
export type Approval = 'run' | 'deny' | 'cancel';

/** What `--jsonl` writes per call and `--json` keeps per step. */
export interface ToolResultMeta {
  id: string;
  name: string;
  ok: boolean;
  denied: boolean;
  duration_ms: number;
  bytes: number;
}

/** One model request of the loop, for `--json` `steps`. */
export interface LoopStep {
  text: string;
  calls: ToolCall[];
  results: ToolResultMeta[];
}

export interface ToolLoopOptions {
  runner: ToolRunner;
  maxSteps: number;
  outputLimit: number;
  timeoutMs: number;
  approve(call: ToolCall, tool: RunnableTool): Promise<Approval>;
  /** A call is about to run (after approval). */
  onCall?(call: ToolCall, tool: RunnableTool): void;
  /** A call ended (or was denied): the display line and the `--jsonl` event come from here. */
  onResult?(meta: ToolResultMeta, entry: ToolResultEntry): void | Promise<void>;
}

export interface ToolLoopOutcome extends TurnOutcome {
  steps: LoopStep[];
  /** true: the answer of the last allowed request still called tools (exit 10). */
  stepLimitReached: boolean;
}

/** Drives `first` (the prompt's request) and every follow-up; yields all their events. */
export async function* runToolLoop(
  conversation: Conversation,
  first: AsyncGenerator<ChatEvent, TurnOutcome, void>,
  signal: AbortSignal,
  options: ToolLoopOptions,
): AsyncGenerator<ChatEvent, ToolLoopOutcome, void> {
  const steps: LoopStep[] = [];
  let outcome = yield* first;
  const byName = new Map(options.runner.tools().map((tool) => [tool.name, tool]));
  for (let requests = 1; ; requests++) {
    const calls = outcome.result.tool_calls;
    const step: LoopStep = { text: outcome.result.text, calls, results: [] };
    steps.push(step);
    // A call of a tool nothing runs behaves as before runnable tools: shown, and the turn ends.
    if (outcome.status !== 'complete' || outcome.error || calls.length === 0 || !calls.every((c) => byName.has(c.name))) {
      return { ...outcome, steps, stepLimitReached: false };
    }
    if (requests >= options.maxSteps) return { ...outcome, steps, stepLimitReached: true };

    const approvals: Approval[] = [];
    for (const call of calls) {
      const approval = await options.approve(call, byName.get(call.name)!);
      if (approval === 'cancel') return { ...outcome, status: 'cancelled', steps, stepLimitReached: false };
      approvals.push(approval);
    }
    const entries = await Promise.all(
      calls.map(async (call, index) => {
        const tool = byName.get(call.name)!;
        const started = performance.now();
        let entry: ToolResultEntry;
        if (approvals[index] === 'deny') {
          entry = { id: call.id, name: call.name, ok: false, denied: true, text: 'The user declined to run this tool call.' };
        } else {
          options.onCall?.(call, tool);
          entry = { id: call.id, name: call.name, ...(await runOne(options, call, signal)) };
        }
        const meta: ToolResultMeta = {
          id: call.id,
          name: call.name,
          ok: entry.ok,
          denied: entry.denied === true,
          duration_ms: Math.round(performance.now() - started),
          bytes: Buffer.byteLength(entry.text),
        };
        return { entry, meta };
      }),
    );
    // Reported in call order, whatever order they finished in.
    for (const { entry, meta } of entries) {
      step.results.push(meta);
      await options.onResult?.(meta, entry);
    }
    // Ctrl-C while tools ran: the turn ends with what was said so far.
    if (signal.aborted) return { ...outcome, status: 'cancelled', steps, stepLimitReached: false };
    outcome = yield* conversation.sendToolResults!(
      entries.map(({ entry }) => entry),
      signal,
    );
  }
}

/** One approved call, bounded by --tool-timeout and Ctrl-C, its text capped at --tool-output-limit. */
async function runOne(options: ToolLoopOptions, call: ToolCall, signal: AbortSignal): Promise<{ ok: boolean; text: string }> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  try {
    const outcome = await options.runner.call(call.name, call.arguments, { signal: AbortSignal.any([signal, timeout.signal]) });
    if (timeout.signal.aborted && !signal.aborted) return { ok: false, text: `timed out after ${formatSeconds(options.timeoutMs)}` };
    return { ok: outcome.ok, text: capOutput(outcome.text, options.outputLimit) };
  } catch (error) {
    if (timeout.signal.aborted && !signal.aborted) return { ok: false, text: `timed out after ${formatSeconds(options.timeoutMs)}` };
    return { ok: false, text: `the tool failed: ${(error as Error)?.message ?? String(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The first `limit` bytes (never splitting a character) and a note saying how much was cut. */
export function capOutput(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  // TextDecoder drops a character cut in half at the end rather than inventing one.
  const kept = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, limit)).replace(/\uFFFD$/, '');
  return `${kept}\n[gatechat: the tool's output was cut at ${limit} bytes of ${bytes.length} (--tool-output-limit)]`;
}
