import type { ChatEvent } from '../protocol/events.js';
import type { TurnOutcome } from '../session/types.js';
import type { OneShotRenderer } from './renderer.js';
import { writeWithBackpressure } from './output.js';
import type { GuardedStream } from './terminal-stream.js';

// `-x, --extract` (SPEC §2): only the first fenced code block of the answer, for
// `gatechat -x "a script that …" > run.sh`. The saved conversation keeps the whole answer.

// CommonMark fences: up to three spaces, then ``` or ~~~ (three or more); a backtick fence's info
// string has no backtick. The block ends at a fence of the same character at least as long, or at
// the end of the answer (a cut-off answer still yields what arrived of its code).
const OPENING = /^( {0,3})(`{3,}(?=[^`]*$)|~{3,})/;

/** The first fenced code block's contents, or null when the text has none. */
export function firstCodeBlock(text: string): string | null {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => OPENING.test(line));
  if (start < 0) return null;
  const [, indent, fence] = OPENING.exec(lines[start]!)!;
  const closing = new RegExp(`^ {0,3}${fence![0] === '`' ? '`' : '~'}{${fence!.length},}[ \\t]*$`);
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (closing.test(line)) break;
    // Content lines lose as much leading space as the opening fence had, as Markdown renders them.
    body.push(line.replace(new RegExp(`^ {0,${indent!.length}}`), ''));
  }
  return body.join('\n');
}

/** What `-x` prints: the first block, else the whole answer; ends with a newline unless empty. */
export function extractAnswer(text: string): string {
  const extracted = firstCodeBlock(text) ?? text;
  return extracted === '' || extracted.endsWith('\n') ? extracted : `${extracted}\n`;
}

export interface ExtractRendererOptions {
  /** Each sanitised when it is a terminal (terminal-stream.ts). */
  stdout: GuardedStream;
  stderr: GuardedStream;
  showReasoning: boolean;
}

/**
 * `-x` without --json/--jsonl, piped or on a terminal: nothing on stdout until the answer ends (a
 * block can only be told from the whole answer then), then the extract as plain text so it can be
 * copied or redirected. Reasoning goes to stderr as usual; tool calls are not printed.
 */
export function createExtractRenderer({ stdout, stderr, showReasoning }: ExtractRendererOptions): OneShotRenderer {
  const parts: string[] = [];
  let reasoningOpen = false;
  return {
    event(event: ChatEvent) {
      if (event.type === 'text') {
        parts.push(event.delta);
      } else if (event.type === 'reasoning' && showReasoning && event.delta) {
        reasoningOpen = true;
        stderr.write(event.delta);
      }
    },
    async end(_outcome: TurnOutcome) {
      stderr.settle();
      if (reasoningOpen) stderr.write('\n');
      const extracted = extractAnswer(parts.join(''));
      await writeWithBackpressure(stdout, extracted);
      stdout.settle();
    },
  };
}
