import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import { ExitCode, GatechatError } from '../exit-codes.js';
import type { Attachment } from '../protocol/events.js';
import type { GatewayConversationApi } from '../session/conversation.js';
import { DESCRIBE_SYSTEM_PROMPT, describeRequest, shellSystemPrompt, userShell } from '../session/shell-command.js';
import { commandFromAnswer, SHELL_MENU, shellAction, shellPrompt } from '../render/shell-menu.js';
import { guardStream } from '../render/terminal-stream.js';
import { openSession, readMessage, type Io } from './context.js';
import { describeRequest as describeHttpRequest } from './dry-run.js';
import type { ChatModeOptions } from './flags.js';
import { interruptOnSignals } from './one-shot.js';
import { formatError } from './report.js';

// SPEC §18 shell mode, `gatechat -e "what to do"`: the model suggests one command for this OS and
// shell. Piped, the command is all that is printed; on a terminal it is shown with its keys, and it
// runs only when the user presses r (or edits it and presses Enter).

export async function runShellMode(options: ChatModeOptions, promptArgs: string[], io: Io): Promise<number> {
  const shell = userShell();
  const system = shellSystemPrompt(process.platform, shell, process.cwd(), options.flags.system);
  const { conversation, conn } = await openSession({ ...options, flags: { ...options.flags, system } }, io);
  const { prompt, attachments } = await readMessage(options, promptArgs, io, conn);
  if (options.dryRun) {
    io.stdout.write(describeHttpRequest(conn, conversation.settings.api, conversation.request(prompt, attachments)));
    return ExitCode.ok;
  }
  const controller = new AbortController();
  const signals = interruptOnSignals(controller);
  let answer: { text: string } | { exit: number };
  try {
    answer = await ask(conversation, prompt, attachments, controller.signal, io);
  } finally {
    signals.dispose();
  }
  if ('exit' in answer) return signals.signalExitCode() ?? answer.exit;
  const command = commandFromAnswer(answer.text);
  if (!command) throw new GatechatError('-e: the model answered with no command', ExitCode.server);
  // Keys need a terminal to come from, and the menu one to be seen on.
  if (!io.stdin.isTTY || !io.stdout.isTTY) {
    io.stdout.write(`${command}\n`);
    return ExitCode.ok;
  }
  return menu(command, shell, conversation, io);
}

/** One turn, its text gathered (nothing shown: the command is shown once it is known). */
async function ask(
  conversation: GatewayConversationApi,
  prompt: string,
  attachments: Attachment[],
  signal: AbortSignal,
  io: Io,
  show?: (delta: string) => void,
): Promise<{ text: string } | { exit: number }> {
  let text = '';
  const events = conversation.send(prompt, signal, attachments);
  for (;;) {
    const step = await events.next();
    if (step.done) {
      const outcome = step.value;
      if (outcome.status === 'cancelled') return { exit: ExitCode.interrupted };
      if (outcome.error) {
        io.stderr.write(`${formatError(outcome.error)}\n`);
        return { exit: outcome.error.exitCode };
      }
      return { text };
    }
    if (step.value.type === 'text') {
      text += step.value.delta;
      show?.(step.value.delta);
    }
  }
}

async function menu(command: string, shell: string, conversation: GatewayConversationApi, io: Io): Promise<number> {
  const stderr = guardStream(io.stderr);
  io.stderr.write(shellPrompt(command));
  for (;;) {
    const action = shellAction(await readKey(io.stdin));
    switch (action) {
      case null:
        continue;
      case 'run':
        return runCommand(command, shell);
      case 'edit': {
        const edited = await editLine(command, io);
        if (edited === null) return ExitCode.interrupted;
        if (!edited.trim()) return ExitCode.ok;
        return runCommand(edited, shell);
      }
      case 'copy': {
        const { osc52 } = await import('../render/ink/osc52.js');
        io.stdout.write(osc52(command));
        io.stderr.write(`copied to the clipboard (OSC 52)\n${SHELL_MENU}\n`);
        continue;
      }
      case 'describe': {
        conversation.update({ system: DESCRIBE_SYSTEM_PROMPT });
        const controller = new AbortController();
        const described = await ask(conversation, describeRequest(command), [], controller.signal, io, (delta) => stderr.write(delta));
        if ('exit' in described) return described.exit;
        io.stderr.write(`\n\n${shellPrompt(command)}`);
        continue;
      }
      case 'quit':
        return ExitCode.ok;
      case 'interrupt':
        return ExitCode.interrupted;
      default: {
        const never: never = action;
        throw new Error(`unknown action ${String(never)}`);
      }
    }
  }
}

/** One key press, read in raw mode (no Enter needed), the terminal given back as it was. */
function readKey(stdin: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve) => {
    stdin.setRawMode(true);
    stdin.resume();
    stdin.once('data', (chunk: Buffer | string) => {
      stdin.setRawMode(false);
      stdin.pause();
      resolve(chunk.toString());
    });
  });
}

/** The command on an editable line (readline's keys); Enter gives the line, Ctrl-C null. */
function editLine(command: string, io: Io): Promise<string | null> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true, historySize: 0 });
    let answered = false;
    rl.on('SIGINT', () => {
      io.stderr.write('\n');
      rl.close();
    });
    rl.on('close', () => {
      io.stdin.pause();
      if (!answered) resolve(null);
    });
    rl.question('edit> ', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.write(command);
  });
}

/**
 * `$SHELL -c command` on the terminal; its exit status is gatechat's (a signal: 128 + its number, as
 * shells report it). Ctrl-C while it runs is the command's to handle, as in a shell.
 */
function runCommand(command: string, shell: string): Promise<number> {
  return new Promise((resolve) => {
    const ignore = () => undefined;
    process.on('SIGINT', ignore);
    process.on('SIGQUIT', ignore);
    const child = spawn(shell, ['-c', command], { stdio: 'inherit' });
    const done = (code: number) => {
      process.off('SIGINT', ignore);
      process.off('SIGQUIT', ignore);
      resolve(code);
    };
    child.on('error', (error) => {
      process.stderr.write(`gatechat: -e: could not start ${shell}: ${(error as NodeJS.ErrnoException).code ?? error.message}\n`);
      done(ExitCode.usage);
    });
    child.on('close', (code, signal) => done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}
