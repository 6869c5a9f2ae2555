import { UsageError } from '../exit-codes.js';
import type { RawChatOptions } from './program.js';
import { validateChatOptions, type ChatModeOptions, type OptionSources } from './flags.js';
import { reportError } from './report.js';
import { readPlainLine } from './fast-line.js';
import type { Action } from './commander-program.js';
import type { Io } from './context.js';
import { withKnownSize } from './terminal.js';
import { DirectStdin } from '../session/direct-stdin.js';
import { isBuilt, OutputTerminals, prepareWhenBuilt } from './std-streams.js';
import type { ChatModeOptions as Options } from './flags.js';

// Everything that sends a request (undici, protocol, session) is imported when a command runs, so
// `--version`, `--help` and usage errors load only commander; a plain one-shot line loads no commander.
const runOneShot = async (options: Options, prompt: string[], io: Io) => (await import('./one-shot.js')).runOneShot(options, prompt, io);

// `gatechat --help | head -1`: a reader that stops reading is no error of ours. Whatever a command still
// writes goes nowhere and the command ends with its own exit code, as other CLI tools do; without a
// listener Node throws the EPIPE as an unhandled 'error' event (a stack trace on stderr). The one-shot and
// batch also stop their work when it happens (one-shot.ts, batch.ts).
const ignoreBrokenPipe = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
};
// A terminal that reports 0×0 is taken as 80×24 by everything that reads its size (Ink included).
const prepareOutput = (stream: NodeJS.WriteStream) => withKnownSize(stream).on('error', ignoreBrokenPipe);
// stdout and stderr are built when first used, and prepared then (std-streams.ts): a piped one-shot builds
// stdout once its request is written, and stderr only to say something.
prepareWhenBuilt('stdout', prepareOutput);
prepareWhenBuilt('stderr', prepareOutput);

// stdin, stdout and stderr are getters: process.stdin builds its stream when first read too (for a pipe a
// net.Socket, ~1.5 ms), and a piped one-shot reads its prompt through the descriptor instead (wholeStdin).
// Whether stdout and stderr are terminals is asked of their descriptors (terminals).
const io: Io = {
  get stdin() {
    return process.stdin;
  },
  wholeStdin: new DirectStdin(),
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  terminals: new OutputTerminals(),
};

let verbose = false;

/** The root command's action, whoever read the line: validate every option, then a chat or one turn. */
async function runRoot(raw: RawChatOptions, sources: OptionSources, prompt: string[]): Promise<number> {
  const options = validateChatOptions(raw, sources);
  verbose = options.verbose;
  return runChatOrOneShot(options, prompt);
}

/** The mode, decided here only: no prompt with terminals on both ends is a chat; anything else one turn. */
async function runChatOrOneShot(options: ChatModeOptions, prompt: string[]): Promise<number> {
  // A template is read (its front matter under the flags) before the mode's settings are resolved.
  if (options.template) options = await (await import('./template-options.js')).applyTemplate(options);
  if (options.shellMode) return (await import('./shell-mode.js')).runShellMode(options, prompt, io);
  // Two or more -m: compare mode, always one turn (SPEC §11).
  if (options.compare) return (await import('./compare.js')).runCompareMode(options, prompt, io);
  // A template is a prompt: -T on a terminal is one turn too; so is --retry (the saved prompt).
  const interactive = prompt.length === 0 && !options.template && !options.retry && io.wholeStdin!.isTTY && io.terminals!.stdout && options.output === 'auto';
  return interactive ? runChat(options, undefined) : runOneShot(options, prompt, io);
}

async function runChat(options: ChatModeOptions, firstPrompt: string | undefined): Promise<number> {
  // Both act on one answer printed to stdout; the chat has neither.
  if (options.extract) throw new UsageError('--extract: only for a one-shot answer (give a prompt, or pipe stdout)');
  if (options.dryRun) throw new UsageError('--dry-run: only for a one-shot request (give a prompt)');
  if (options.compare) {
    throw new UsageError('chat talks to one model at a time (-m given more than once)', 'compare models without chat: gatechat -m A -m B "prompt"');
  }
  const { runInteractive } = await import('./interactive.js');
  return runInteractive(options, firstPrompt, io);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  let action: Action | number;
  try {
    action = await readCommandLine(args);
  } catch (error) {
    return reportError(error, io.stderr, verbose);
  }
  if (typeof action === 'number') return action;
  try {
    return await action();
  } catch (error) {
    return reportError(error, io.stderr, verbose);
  }
}

/**
 * What to run for this command line, or the exit code when nothing is to run (help, a parse error).
 * A plain one-shot line is read without commander (fast-line.ts); commander reads every other line.
 */
async function readCommandLine(args: string[]): Promise<Action | number> {
  const line = readPlainLine(args);
  if (line) return () => runRoot(line.options, line, line.prompt);
  const { readWithCommander } = await import('./commander-program.js');
  return readWithCommander(args, { io, runRoot, runChatOrOneShot, runChat, setVerbose: (on) => (verbose = on) });
}

// Not a top-level await: the build is CommonJS (bin/code-cache.js), which has none.
void main().then((code) => {
  // Let buffered output reach a pipe before exiting; stray handles (sockets, timers) must not hold us.
  // A stdout never built holds nothing (and is not built now for nothing).
  if (!isBuilt('stdout') || process.stdout.destroyed) process.exit(code);
  else process.stdout.write('', () => process.exit(code));
});
