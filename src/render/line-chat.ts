/**
 * Interactive chat on a terminal that takes no cursor movement (TERM=dumb: Emacs shell-mode, some
 * IDE consoles, serial lines). No Ink: the terminal's own line editing reads each prompt, and the
 * answer is printed as it arrives, without escape codes — the gateway's removed, none of our own.
 * Slash commands are the Ink chat's, minus the two that need a full terminal (/copy, /edit).
 */
import { createInterface } from 'node:readline';
import type { Attachment, ChatEvent } from '../protocol/events.js';
import { checkAttachmentLimits, readAttachments } from '../session/attachments.js';
import type { Conversation, TurnOutcome } from '../session/types.js';
import type { ChatToolLoop } from '../cli/tool-loop-session.js';
import { approvalPrompt, type ApprovalKey } from './ink/approval.js';
import { ExitCode } from '../exit-codes.js';
import { readReferences } from './ink/at-references.js';
import { leavingLine } from './ink/chat-banner.js';
import { inChatHint, parseInput, unknownCommandNotice } from './ink/commands.js';
import type { InputHistory } from './ink/input-history.js';
import { runCommand, type CommandContext } from './ink/slash-commands.js';
import { sanitizeForTerminal, TerminalSanitizer } from './terminal-text.js';

export interface LineChatOptions {
  conversation: Conversation;
  firstPrompt?: string;
  /** -a with chat: sent with the first message. */
  attachments?: Attachment[];
  /** /attach https://…: fetches the page over the session's route (SPEC §18). */
  fetchUrl?: (url: string) => Promise<Attachment>;
  history: InputHistory;
  showReasoning: boolean;
  version: string;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Tools that run (SPEC §15): each call asked about on a line of its own. */
  toolLoop?: ChatToolLoop;
}

const PROMPT = '› ';

/** Chat until /exit, Ctrl-D (end of input) or Ctrl-C twice at the prompt; SIGTERM / SIGHUP end it too. */
export async function runLineChat(opts: LineChatOptions): Promise<number> {
  const { conversation, stdout, stderr } = opts;
  let showReasoning = opts.showReasoning;
  let running: AbortController | null = null;
  let turn: Promise<void> | null = null;
  let lastAnswer: string | null = null;
  let exitArmed = false;
  // Files for the next message (/attach, or -a with chat).
  let pendingFiles: Attachment[] = opts.attachments ?? [];
  let attaching: Promise<void> | null = null;
  let leaving = false;
  let code: number = ExitCode.ok;
  const print = (line: string) => stdout.write(`${sanitizeForTerminal(line)}\n`);

  const rl = createInterface({ input: opts.stdin, terminal: false, crlfDelay: Infinity });
  // One reader of the typed lines: the prompt loop below, and a tool call's question while a turn runs
  // (the loop is waiting for that turn then, so the two never read at once).
  const lines = rl[Symbol.asyncIterator]();
  // A read a cancelled question left waiting: the line it gets belongs to the prompt loop.
  let unclaimed: Promise<IteratorResult<string>> | null = null;
  const nextLine = (): Promise<IteratorResult<string>> => {
    const next = unclaimed ?? lines.next();
    unclaimed = null;
    return next;
  };

  /** A tool call's question: the answer is the next line (y, a, n; Esc or "esc" cancels); Ctrl-C cancels. */
  const ask = async (call: { name: string; arguments: unknown }, source: string): Promise<ApprovalKey> => {
    const signal = running?.signal;
    print(approvalPrompt(call, source));
    while (true) {
      stdout.write('? ');
      const read = nextLine();
      const next = await Promise.race([
        read,
        new Promise<null>((resolve) => (signal?.aborted ? resolve(null) : signal?.addEventListener('abort', () => resolve(null), { once: true }))),
      ]);
      if (next === null) {
        unclaimed = read;
        return 'esc';
      }
      if (next.done) return 'esc';
      const answer = next.value.trim().toLowerCase();
      if (answer === 'y' || answer === 'a' || answer === 'n') return answer;
      if (answer === '\u001b' || answer === 'esc') return 'esc';
      print('y run once · a allow for this session · n deny · Esc cancel');
    }
  };

  const runTurn = async (events: AsyncGenerator<ChatEvent, TurnOutcome, void>, after?: (outcome: TurnOutcome) => void) => {
    const text = new TerminalSanitizer();
    const reasoning = new TerminalSanitizer();
    let atLineStart = true;
    let inReasoning = false;
    const write = (stream: NodeJS.WritableStream, piece: string) => {
      if (!piece) return;
      stream.write(piece);
      atLineStart = piece.endsWith('\n');
    };
    let outcome: TurnOutcome;
    while (true) {
      const step = await events.next();
      if (step.done) {
        outcome = step.value;
        break;
      }
      const event = step.value;
      if (event.type === 'text') {
        if (inReasoning) {
          if (!atLineStart) stderr.write('\n');
          atLineStart = true;
          inReasoning = false;
        }
        write(stdout, text.push(event.delta));
      } else if (event.type === 'reasoning' && showReasoning) {
        inReasoning = true;
        write(stderr, reasoning.push(event.delta));
      } else if (event.type === 'tool_call') {
        if (!atLineStart) stdout.write('\n');
        atLineStart = true;
        print(`[tool call ${event.name} ${event.id}] ${JSON.stringify(event.arguments)}`);
      }
    }
    write(stdout, text.end());
    if (!atLineStart) stdout.write('\n');
    lastAnswer = outcome.result.text || lastAnswer;
    if (outcome.status === 'cancelled') print('⊘ cancelled');
    else if (outcome.error) print(`✗ failed: ${outcome.error.message}${outcome.error.hint ? ` (${inChatHint(outcome.error.hint)})` : ''}`);
    else if (outcome.status === 'interrupted') print('✗ interrupted');
    else if (outcome.result.finish_reason === 'length') print('answer cut off at the token limit (finish_reason: length)');
    after?.(outcome);
  };

  const startTurn: CommandContext['startTurn'] = (events, _prompt, controller, after) => {
    running = controller;
    turn = runTurn(events, after).finally(() => {
      running = null;
    });
  };

  const context: CommandContext = {
    conversation,
    lineMode: true,
    notice: (text) => print(text),
    startTurn,
    exit: () => {
      leaving = true;
      rl.close();
    },
    toggleReasoning: (show) => {
      showReasoning = show ?? !showReasoning;
      print(`reasoning ${showReasoning ? 'shown' : 'hidden'}`);
    },
    reset: () => print(`new conversation · ${conversation.settings.model} · ${conversation.settings.api}`),
    copy: () => {
      throw new Error('needs a terminal that takes OSC 52 escape codes, and TERM=dumb does not');
    },
    lastAnswer: () => lastAnswer,
    edit: () => print('/edit needs a full terminal for the editor (TERM=dumb); type or paste the prompt instead'),
    attach: (path) => {
      if (path === null) {
        pendingFiles = [];
        return print('attachments cleared');
      }
      attaching = (async () => {
        try {
          const next = [...pendingFiles, ...(await readAttachments([path], { warn: print, commands: true, fetchUrl: opts.fetchUrl }))];
          checkAttachmentLimits(next, '');
          pendingFiles = next;
          print(`attached to the next message: ${next.map((f) => f.path).join(', ')}`);
        } catch (error) {
          print((error as Error).message);
        }
      })();
    },
  };

  const handle = async (line: string) => {
    const parsed = parseInput(line);
    if (parsed.kind === 'prompt') {
      if (!line.trim()) return;
      opts.history.append(line);
      let message: string;
      let files: Attachment[];
      try {
        // @path attaches like /attach; a path that names nothing sends nothing.
        const referenced = await readReferences(parsed.text, print);
        message = referenced.text;
        files = [...pendingFiles, ...referenced.files];
        checkAttachmentLimits(files, message);
      } catch (error) {
        return print((error as Error).message);
      }
      const controller = new AbortController();
      pendingFiles = [];
      const first = conversation.send(message, controller.signal, files);
      const events = opts.toolLoop ? opts.toolLoop.wrap(conversation, first, controller.signal, { ask, say: print }) : first;
      startTurn(events, message, controller);
    } else if (parsed.kind === 'command') {
      runCommand(parsed.name, parsed.arg, context, parsed.force);
    } else {
      print(unknownCommandNotice(parsed));
    }
    if (attaching) {
      await attaching;
      attaching = null;
    }
    if (turn) {
      await turn;
      turn = null;
    }
  };

  const onInterrupt = () => {
    if (running) return running.abort();
    if (exitArmed) return context.exit();
    exitArmed = true;
    stdout.write('\npress Ctrl-C again to exit\n' + PROMPT);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    code = signal === 'SIGHUP' ? 129 : ExitCode.terminated;
    running?.abort();
    context.exit();
  };
  process.on('SIGINT', onInterrupt);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);

  print(`gatechat ${opts.version} · ${conversation.settings.model} · ${conversation.settings.api} · /help for commands · Ctrl-D exits`);
  try {
    if (opts.firstPrompt?.trim()) await handle(opts.firstPrompt);
    let pending = '';
    stdout.write(PROMPT);
    while (true) {
      const next = await nextLine();
      if (next.done) break;
      const line = next.value;
      exitArmed = false;
      // A trailing backslash continues the prompt on the next line, as in the Ink chat and a shell.
      if (line.endsWith('\\')) {
        pending += `${line.slice(0, -1)}\n`;
        continue;
      }
      await handle(pending + line);
      pending = '';
      if (leaving) break;
      stdout.write(PROMPT);
    }
    // End of input (Ctrl-D) during an answer: let it finish and be recorded.
    if (turn) await turn;
    if (!leaving) stdout.write('\n');
    const farewell = leavingLine(conversation);
    if (farewell && code === ExitCode.ok) print(farewell);
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    rl.close();
  }
  return code;
}
