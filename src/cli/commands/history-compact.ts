import type { Command } from 'commander';
import { ExitCode, UsageError } from '../../exit-codes.js';
import { ConversationStore } from '../../session/conversation-store.js';
import { dataDir } from '../../session/paths.js';
import type { TurnOutcome } from '../../session/types.js';
import { sanitizeForTerminal } from '../../render/terminal-text.js';
import { jsonText } from '../../render/json-text.js';
import type { RawChatOptions } from '../program.js';
import { validateChatOptions } from '../flags.js';
import { diagnostics, openSession, type Io } from '../context.js';
import { reportError } from '../report.js';
import { interruptOnSignals } from '../one-shot.js';

// `gatechat history compact [ID [INSTRUCTIONS…]]` (SPEC §17): the one history action that sends a
// request, so the one that takes the connection options (main.ts gives them to it alone). The
// conversation is continued as `--cid ID` would (its model, interface, system prompt; flags win), asked
// for a summary (session/compaction.ts), and the summary record is appended by the session.
//
// stdout: the summary (or with --json one object); stderr: one line saying what it stands for.
// Nothing new to summarise is not a failure (exit 0, one line): running it again is harmless.

export type RawCompactOptions = Pick<RawChatOptions, 'model' | 'api' | 'maxTokens' | 'json' | 'verbose' | 'baseUrl' | 'auth' | 'header' | 'timeout' | 'connectTimeout' | 'maxTime' | 'retries' | 'proxy' | 'profile'>;

export async function runHistoryCompact(raw: RawCompactOptions, command: Command, id: string | undefined, words: string[], io: Io): Promise<number> {
  if ((raw.model?.length ?? 0) > 1) throw new UsageError('history compact: one -m, the model that writes the summary');
  // Instructions typed without an id are for the latest conversation, as a bare `history compact` is.
  if (id !== undefined && !ID_START.test(id)) {
    words = [id, ...words];
    id = undefined;
  }
  const store = new ConversationStore(dataDir(), { warn: diagnostics(io, false).warn });
  const cid = id !== undefined ? store.resolveId(id) : store.latest();
  if (!cid) throw new UsageError('history compact: there is no saved conversation yet');
  const options = validateChatOptions({ ...raw, cid } as RawChatOptions, command);
  // What it is for is writing the summary: a config `save: false` does not stop it.
  options.flags.save = true;
  options.readStdin = false;
  const session = await openSession(options, io);
  const controller = new AbortController();
  const events = session.conversation.compact!(words.join(' '), controller.signal);
  const json = Boolean(raw.json);

  if (!events) {
    const summary = store.load(cid).summaries.at(-1);
    const why = summary ? 'every turn is in its summary already' : 'no answered turn to summarise';
    io.stderr.write(`gatechat: nothing to compact in ${cid}: ${why}\n`);
    if (json) io.stdout.write(`${jsonText({ id: cid, compacted: false, summary: summary?.content ?? null, turns: summary?.covered ?? 0 }, 2)}\n`);
    return ExitCode.ok;
  }

  const signals = interruptOnSignals(controller);
  let outcome: TurnOutcome;
  try {
    while (true) {
      const step = await events.next();
      if (step.done) {
        outcome = step.value;
        break;
      }
    }
  } finally {
    signals.dispose();
  }
  if (outcome.error || !outcome.compaction) {
    const code = reportError(outcome.error ?? new UsageError('nothing was compacted'), io.stderr, Boolean(raw.verbose));
    return signals.signalExitCode() ?? code;
  }
  const { result, compaction } = outcome;
  if (json) {
    const answer = {
      id: cid,
      compacted: true,
      summary: result.text,
      turns: compaction.turns,
      through: compaction.through ?? null,
      model: result.model ?? session.conversation.settings.model,
      api: session.conversation.settings.api,
      usage: result.usage,
      ...(result.cost ? { cost: result.cost } : {}),
    };
    io.stdout.write(`${jsonText(answer, 2)}\n`);
  } else {
    const text = io.stdout.isTTY ? sanitizeForTerminal(result.text) : result.text;
    io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
  const span = compaction.turns === 1 ? 'turn 1 (about' : `turns 1–${compaction.turns} (about`;
  io.stderr.write(
    `gatechat: compacted ${cid}: ${span} ${compaction.coveredTokens} tokens) ${compaction.turns === 1 ? 'is' : 'are'} now a summary of about ${compaction.summaryTokens} tokens, sent in their place from now on\n`,
  );
  return ExitCode.ok;
}

/** An id or its start (`20261128-215554-dd2f`, `20261128-21`): digits, hex letters and dashes, a digit first. */
const ID_START = /^[0-9][0-9a-f-]*$/i;
