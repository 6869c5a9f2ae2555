import { ExitCode, UsageError } from '../../exit-codes.js';
import { ConversationStore, type AssistantRecord, type ConversationSummary, type StoredAttachment } from '../../session/conversation-store.js';
import { dataDir } from '../../session/paths.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import { jsonText } from '../../render/json-text.js';

// `gatechat history [list|show ID|rm ID|rm --older-than AGE|fork ID]` (`compact`: history-compact.ts). Usage problems (unknown id) are
// thrown as UsageError; main prints them (exit 2). Removing by age and forking: history-lifecycle.ts.

export type HistoryAction = 'list' | 'show' | 'rm' | 'fork';

export interface HistoryIo {
  /** Only `rm --older-than` reads it (its question on a terminal). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * `arg`: for list, the text to filter by; for show and rm, an id or the start of one (show with
 * none: the latest conversation).
 */
export async function runHistoryCommand(
  action: HistoryAction,
  arg: string | undefined,
  opts: { json?: boolean; olderThan?: string; yes?: boolean },
  io: HistoryIo,
  // A damaged conversation is named in one warning line; the others are listed and shown as usual.
  store: ConversationStore = new ConversationStore(dataDir(), { warn: (line) => io.stderr.write(`gatechat: ${sanitizeForTerminal(line)}\n`) }),
): Promise<number> {
  switch (action) {
    case 'list':
      return list(store, arg, Boolean(opts.json), io);
    case 'show': {
      const cid = arg ? store.resolveId(arg) : store.latest();
      if (!cid) throw new UsageError('history show: there is no saved conversation yet');
      return show(store, cid, Boolean(opts.json), io);
    }
    case 'rm': {
      if (opts.olderThan !== undefined) {
        if (arg) throw new UsageError(`history rm: give an id or --older-than, not both`);
        const { pruneHistory } = await import('./history-lifecycle.js');
        const stdin = io.stdin ?? process.stdin;
        return pruneHistory(store, opts.olderThan, { yes: Boolean(opts.yes), format: (found) => forOutput(io, listing(found)) }, { ...io, stdin });
      }
      // Never "the latest" by default: removing needs the id (or an unambiguous start of it).
      if (!arg) throw new UsageError('history rm: which conversation? (an id, or --older-than 30d; see: gatechat history list)');
      const cid = store.resolveId(arg);
      const blobs = store.remove(cid);
      const freed = blobs > 0 ? ` and ${blobs} attachment${blobs === 1 ? '' : 's'} nothing else uses` : '';
      io.stderr.write(`gatechat: removed conversation ${cid}${freed}\n`);
      return ExitCode.ok;
    }
    case 'fork': {
      if (!arg) throw new UsageError('history fork: which conversation? (see: gatechat history list)');
      const { forkConversation } = await import('./history-lifecycle.js');
      return forkConversation(store, arg, { ...io, stdin: io.stdin ?? process.stdin });
    }
    default: {
      const never: never = action;
      throw new UsageError(`history: unknown action ${JSON.stringify(never)}; expected list, show ID, rm ID or fork ID`);
    }
  }
}

/** Saved text drawn on a terminal loses its escape codes (SPEC §8); piped, it stays as saved. */
function forOutput(io: HistoryIo, text: string): string {
  return (io.stdout as { isTTY?: boolean }).isTTY ? sanitizeForTerminal(text) : text;
}

function list(store: ConversationStore, matching: string | undefined, json: boolean, io: HistoryIo): number {
  const conversations = store.list(matching);
  if (json) {
    io.stdout.write(`${jsonText(conversations, 2)}\n`);
    return ExitCode.ok;
  }
  if (conversations.length === 0) {
    io.stderr.write(matching ? `gatechat: no saved conversation mentions ${JSON.stringify(matching)}\n` : 'gatechat: no saved conversations yet\n');
    return ExitCode.ok;
  }
  io.stdout.write(forOutput(io, listing(conversations)));
  return ExitCode.ok;
}

/** One row per conversation: id, last activity, turns, model, title (what `history list` prints). */
function listing(conversations: ConversationSummary[]): string {
  const modelWidth = Math.min(30, Math.max(5, ...conversations.map((c) => c.model.length)));
  const row = (c: ConversationSummary) =>
    [c.cid, localTime(c.updated), `${String(c.turns).padStart(3)} ${c.turns === 1 ? 'turn ' : 'turns'}`, c.model.padEnd(modelWidth), c.title].join('  ');
  return `${conversations.map(row).join('\n')}\n`;
}

function show(store: ConversationStore, cid: string, json: boolean, io: HistoryIo): number {
  if (json) {
    io.stdout.write(`${jsonText(store.records(cid), 2)}\n`);
    return ExitCode.ok;
  }
  const { meta, turns, summaries } = store.load(cid);
  const out: string[] = [`# ${meta.cid} · ${meta.model || 'unknown model'} · ${meta.api} · ${localTime(meta.created)}`];
  if (meta.system) out.push(`system: ${meta.system}`);
  // Each summary (SPEC §17 compact) after the last turn it covers; the turns themselves are shown as ever.
  const summariesAfter = (count: number) =>
    summaries.forEach((summary, i) => {
      if (summary.covered !== count) return;
      const span = summary.covered === 1 ? 'turn 1' : `turns 1–${summary.covered}`;
      const role = i === summaries.length - 1 ? 'sent in their place' : 'replaced by a later summary';
      out.push('', `[summary of ${span} · ${summary.model ?? 'unknown model'} · ${role}]`, summary.content.replace(/\n$/, ''));
    });
  summariesAfter(0);
  for (const [index, turn] of turns.entries()) {
    if (index > 0) summariesAfter(index);
    if (turn.toolResults?.length) {
      // A tool loop's follow-up: the results it sent back (SPEC §15), each folded to its first lines.
      out.push('');
      for (const r of turn.toolResults) {
        const mark = r.denied ? '⊘ denied' : r.ok ? '✓' : '✗';
        const lines = r.text.split('\n');
        const shown = lines.slice(0, 5).join('\n') + (lines.length > 5 ? `\n… (${lines.length - 5} more lines)` : '');
        out.push(`[tool result ${r.name} ${mark}]`, ...shown.split('\n').map((line) => `  ${line}`));
      }
    } else {
      out.push('', ...turn.user.split('\n').map((line) => `> ${line}`));
    }
    for (const a of turn.attachments ?? []) out.push(`> ${attachmentLabel(a)}`);
    out.push('');
    // `/retry -m` kept the earlier answers to this prompt (SPEC §17): each labelled, the newest last.
    const alternatives = turn.alternatives ?? [];
    const count = alternatives.length + 1;
    alternatives.forEach((alternative, i) => {
      out.push(`[answer ${i + 1} of ${count} · ${alternative.assistant?.model ?? 'unknown model'}]`, ...answerLines(alternative.assistant), '');
    });
    if (count > 1) out.push(`[answer ${count} of ${count} · ${turn.assistant?.model ?? 'unknown model'} · the one continued]`);
    out.push(...answerLines(turn.assistant));
  }
  if (turns.length > 0) summariesAfter(turns.length);
  io.stdout.write(forOutput(io, `${out.join('\n')}\n`));
  return ExitCode.ok;
}

/** An answer as `history show` prints it: its text, its tool calls, how it ended when not complete. */
function answerLines(answer: AssistantRecord | null): string[] {
  if (!answer) return ['[no answer recorded]'];
  const out: string[] = [];
  if (answer.content) out.push(answer.content.replace(/\n$/, ''));
  for (const call of answer.tool_calls ?? []) out.push(`[tool call ${call.name} ${JSON.stringify(call.arguments)}]`);
  const marker = statusMarker(answer);
  if (marker) out.push(marker);
  return out;
}

/** `[attached photo.png · image/png · 2048 bytes]`: named, never dumped. */
function attachmentLabel(a: StoredAttachment): string {
  switch (a.kind) {
    case 'text':
      return `[attached ${a.path} · text · ${Buffer.byteLength(a.text)} bytes]`;
    case 'image':
      return `[attached ${a.path} · ${a.mime} · ${a.bytes} bytes]`;
    case 'pdf':
      return `[attached ${a.path} · application/pdf · ${a.bytes} bytes]`;
    default: {
      const never: never = a;
      return String(never);
    }
  }
}

/** Complete answers need no marker; anything else says how it ended, so a partial is never mistaken for a whole. */
function statusMarker(record: AssistantRecord): string | null {
  switch (record.status) {
    case 'complete':
      return record.finish_reason === 'length' ? '[stopped: max tokens reached]' : null;
    case 'cancelled':
      return '[cancelled]';
    case 'interrupted':
      return '[interrupted: the stream ended early]';
    case 'error':
      return `[error${record.error ? `: ${record.error.message}` : ''}]`;
    default: {
      const never: never = record.status;
      return `[${String(never)}]`;
    }
  }
}

/** `2026-11-22 15:30` in local time; ids and JSON keep UTC. */
function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '????-??-?? ??:??';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
