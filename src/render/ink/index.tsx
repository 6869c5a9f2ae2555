/**
 * The Ink UI: interactive chat and the one-shot view on a terminal. The CLI reaches this module only
 * through import(), so the piped path never loads Ink or React (SPEC §10).
 */
import { render } from 'ink';
import type { Api, Attachment, ChatEvent } from '../../protocol/events.js';
import type { Conversation, TurnOutcome } from '../../session/types.js';
import { ExitCode } from '../../exit-codes.js';
export { footerText } from '../footer.js';
import { ChatApp } from './ChatApp.js';
import type { ModelCatalog, TemplateShelf } from './slash-commands.js';
import { openInputHistory } from './input-history.js';
import { OneShotApp } from './OneShotApp.js';
import type { ToolViewHooks } from './approval.js';
import { loadMarkdown } from './markdown-loader.js';
import { footerText } from '../footer.js';
import { CompareApp } from './CompareApp.js';
import { initYoga } from './yoga-layout.js';
import type { CompareHandlers } from '../../session/compare.js';
import { kittyKeyboardMode, openChatTerminal } from './ink-terminal.js';
import { leavingLine } from './chat-banner.js';
import type { ChatToolLoop } from '../../cli/tool-loop-session.js';

export interface InteractiveChatOptions {
  conversation: Conversation;
  firstPrompt?: string;
  /** -a with chat: sent with the first message. */
  attachments?: Attachment[];
  /** /attach https://…: fetches the page over the session's route (SPEC §18). */
  fetchUrl?: (url: string) => Promise<Attachment>;
  inputHistoryFile: string;
  /** false: read the earlier prompts, write none of this chat's (--no-save). */
  saveInputHistory: boolean;
  /** false for NO_COLOR or TERM=dumb */
  color: boolean;
  showReasoning: boolean;
  version: string;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Hands the view the retry notices, to draw above its live region. */
  showRetryNotices?: (show: (line: string) => void) => void;
  /** Aliases and model ids for /model (Tab) and /models. */
  models?: ModelCatalog;
  /** The user's templates for /template (Tab completes their names). */
  templates?: TemplateShelf;
  /** Runnable tools (SPEC §15): calls approved in the live region and run in a loop. */
  toolLoop?: ChatToolLoop;
}

// Ink options: Ctrl-C is ours (cancel / clear / exit twice); incremental rendering rewrites only
// changed lines of the live region; 30 fps matches the 30 ms delta batching.
const INK_OPTIONS = { exitOnCtrlC: false, patchConsole: false, maxFps: 30, incrementalRendering: false } as const;

/** Interactive chat until /exit, Ctrl-D or Ctrl-C twice (0), or SIGTERM / SIGHUP. */
export async function runInteractiveChat(opts: InteractiveChatOptions): Promise<number> {
  // Ink's layout engine, before its first render (yoga-layout.ts says why it is not loaded at import).
  await initYoga();
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  const history = openInputHistory(opts.inputHistoryFile, { write: opts.saveInputHistory, warn: (line) => process.stderr.write(`gatechat: ${line}\n`) });
  // A resumed chat prints its earlier answers at once: with Markdown, as they were first shown.
  if (opts.conversation.turns.length > 0) await loadMarkdown();
  let code: number = ExitCode.ok;
  // Raw mode before the first frame: keys typed as soon as the prompt shows must not go through the
  // tty's line discipline (which turns Enter into LF and holds input until a newline).
  if (stdin.isTTY) stdin.setRawMode(true);
  const terminal = openChatTerminal(stdout, stdin);
  const instance = render(
    <ChatApp
      conversation={opts.conversation}
      firstPrompt={opts.firstPrompt}
      attachments={opts.attachments}
      history={history}
      color={opts.color}
      showReasoning={opts.showReasoning}
      version={opts.version}
      showRetryNotices={opts.showRetryNotices}
      models={opts.models}
      templates={opts.templates}
      fetchUrl={opts.fetchUrl}
      toolLoop={opts.toolLoop}
      terminal={terminal}
      onExit={(c) => {
        code = c;
      }}
    />,
    // Kitty's keyboard protocol where the terminal has it (Shift+Enter told from Enter); Ink pops it at exit.
    { ...INK_OPTIONS, stdout: terminal.stdout, stdin, kittyKeyboard: { mode: kittyKeyboardMode(), flags: ['disambiguateEscapeCodes'] } },
  );
  // A terminal left in bracketed-paste mode garbles the shell's next paste; extended keys, its keys.
  const restoreTerminal = () => terminal.restore();
  const onSignal = (signal: NodeJS.Signals) => {
    code = signal === 'SIGHUP' ? 129 : ExitCode.terminated;
    instance.unmount();
  };
  process.on('exit', restoreTerminal);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  try {
    await instance.waitUntilExit();
  } finally {
    process.off('exit', restoreTerminal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    restoreTerminal();
    terminal.dispose();
  }
  const farewell = leavingLine(opts.conversation);
  if (farewell && code === ExitCode.ok) stdout.write(`${farewell}\n`);
  return code;
}

export interface OneShotTtyOptions {
  run: (signal: AbortSignal) => AsyncGenerator<ChatEvent, TurnOutcome, void>;
  /** The tool loop's approval prompt and lines, through this view (OneShotApp). */
  bindToolHooks?: (hooks: ToolViewHooks) => void;
  model: string;
  api: Api;
  color: boolean;
  showReasoning: boolean;
  quiet: boolean;
  showRetryNotices?: (show: (line: string) => void) => void;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** One turn with the live view on a terminal; Ctrl-C aborts and resolves with the cancelled outcome. */
export async function renderOneShotTty(opts: OneShotTtyOptions): Promise<TurnOutcome> {
  // Ink's layout engine, before its first render (yoga-layout.ts says why it is not loaded at import).
  await initYoga();
  const stdin = opts.stdin ?? process.stdin;
  const stderr = opts.stderr ?? process.stderr;
  let outcome: TurnOutcome | null = null;
  const instance = render(
    <OneShotApp
      run={opts.run}
      color={opts.color}
      showReasoning={opts.showReasoning}
      quiet={opts.quiet}
      keys={Boolean(stdin.isTTY)}
      showRetryNotices={opts.showRetryNotices}
      bindToolHooks={opts.bindToolHooks}
      onDone={(o) => {
        outcome = o;
      }}
    />,
    { ...INK_OPTIONS, stdout: opts.stdout ?? process.stdout, stdin, stderr },
  );
  await instance.waitUntilExit();
  const done = outcome as TurnOutcome | null;
  if (!done) throw new Error('the one-shot view ended without an outcome');
  if (!opts.quiet) {
    const footer = footerText(done, opts.model, opts.api);
    stderr.write(`${opts.color ? `\u001B[2m${footer}\u001B[22m` : footer}\n`);
  }
  return done;
}

export interface CompareTtyOptions {
  names: readonly string[];
  run: (handlers: CompareHandlers, signal: AbortSignal) => Promise<TurnOutcome[]>;
  /** Hands the view each model's retry notices, shown in that model's pane. */
  showRetryNotices?: (show: (index: number, line: string) => void) => void;
  color: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** Compare mode on a terminal: live panes, then the answers and the summary table. */
export async function renderCompareTty(opts: CompareTtyOptions): Promise<TurnOutcome[]> {
  // Ink's layout engine, before its first render (yoga-layout.ts says why it is not loaded at import).
  await initYoga();
  const stdin = opts.stdin ?? process.stdin;
  let outcomes: TurnOutcome[] | null = null;
  const instance = render(
    <CompareApp
      names={opts.names}
      run={opts.run}
      showRetryNotices={opts.showRetryNotices}
      keys={Boolean(stdin.isTTY)}
      color={opts.color}
      onDone={(all) => {
        outcomes = all;
      }}
    />,
    { ...INK_OPTIONS, stdout: opts.stdout ?? process.stdout, stdin, stderr: opts.stderr ?? process.stderr },
  );
  await instance.waitUntilExit();
  if (!outcomes) throw new Error('the compare view ended without outcomes');
  return outcomes;
}
