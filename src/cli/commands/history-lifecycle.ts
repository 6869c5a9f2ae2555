import { createInterface } from 'node:readline';
import { ExitCode, UsageError } from '../../exit-codes.js';
import { conversationTitle } from '../../session/conversation-records.js';
import type { ConversationStore } from '../../session/conversation-store.js';
import { parseAge } from '../durations.js';

// SPEC §17 "Lifecycle": `history rm --older-than <age>` and `history fork <id>`. Kept apart from
// history.ts (listing and showing): these write.

export interface LifecycleIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Removes the conversations whose last activity (the `updated` of `history list`) is older than `age`.
 * On a terminal it lists them and asks; `yes` removes without asking; with no terminal to ask on and
 * no `yes`, nothing is removed (usage error, exit 2). A conversation written to after it was listed
 * (a run continuing it right now) is kept: removeAll() checks each file under its lock.
 */
export async function pruneHistory(
  store: ConversationStore,
  age: string,
  options: { yes: boolean; format: (conversations: ReturnType<ConversationStore['list']>) => string },
  io: LifecycleIo,
  now = Date.now(),
): Promise<number> {
  const cutoff = now - parseAge(age, '--older-than');
  if (!options.yes && !io.stdin.isTTY) {
    throw new UsageError(`history rm --older-than ${age}: nothing removed: stdin is not a terminal to ask on (add --yes to remove without asking)`);
  }
  // A date that does not parse is no age: such a conversation is never taken for an old one.
  const old = store.list().filter((c) => Date.parse(c.updated) < cutoff);
  if (old.length === 0) {
    io.stderr.write(`gatechat: no conversation older than ${age}\n`);
    return ExitCode.ok;
  }
  const count = `${old.length} conversation${old.length === 1 ? '' : 's'}`;
  if (!options.yes) {
    io.stdout.write(options.format(old));
    io.stderr.write(`remove these ${count} (last used more than ${age} ago)? [y/N] `);
    const answer = (await readAnswer(io.stdin))?.trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') {
      io.stderr.write('gatechat: nothing removed\n');
      return ExitCode.ok;
    }
  }
  const { removed, kept, blobs } = store.removeAll(
    old.map((c) => c.cid),
    (stat) => stat.mtimeMs >= cutoff,
  );
  const freed = blobs > 0 ? ` and ${blobs} attachment${blobs === 1 ? '' : 's'} nothing else uses` : '';
  const spared = kept.length > 0 ? `; kept ${kept.join(', ')}: written to meanwhile` : '';
  io.stderr.write(`gatechat: removed ${removed.length} conversation${removed.length === 1 ? '' : 's'} older than ${age}${freed}${spared}\n`);
  return ExitCode.ok;
}

/** One typed line; null at end of input (Ctrl-D), which is a no. */
function readAnswer(stdin: NodeJS.ReadableStream): Promise<string | null> {
  const lines = createInterface({ input: stdin, terminal: false });
  return new Promise((resolve) => {
    lines.once('line', (line) => {
      resolve(line);
      lines.close();
    });
    lines.once('close', () => resolve(null));
  });
}

/**
 * Copies the conversation to a new id, printed alone on stdout (scripts: `gatechat --cid "$(gatechat
 * history fork ID)" …`). The copy's title is the original's marked `(fork)`; continuing either one
 * never touches the other.
 */
export function forkConversation(store: ConversationStore, id: string, io: LifecycleIo): number {
  const cid = store.resolveId(id);
  const copy = store.fork(cid, (records) => `${conversationTitle(records) || cid} (fork)`);
  io.stdout.write(`${copy}\n`);
  io.stderr.write(`gatechat: forked ${cid} as ${copy}; continue the copy with: gatechat --cid ${copy}\n`);
  return ExitCode.ok;
}
