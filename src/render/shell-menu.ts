import { firstCodeBlock } from './extract.js';
import { sanitizeForTerminal } from './terminal-text.js';

// SPEC §18 shell mode on a terminal: the suggested command and what each key does. Pure.

export const SHELL_MENU = 'r run · e edit, then run · c copy · d describe · q quit';

export type ShellAction = 'run' | 'edit' | 'copy' | 'describe' | 'quit' | 'interrupt';

/** A key press (raw bytes as the terminal sends them) → what it means; null: nothing (wait for another). */
export function shellAction(key: string): ShellAction | null {
  switch (key) {
    case 'r':
    case 'R':
      return 'run';
    case 'e':
    case 'E':
      return 'edit';
    case 'c':
    case 'C':
      return 'copy';
    case 'd':
    case 'D':
      return 'describe';
    case 'q':
    case 'Q':
    case '\u001b': // Esc
    case '\u0004': // Ctrl-D
      return 'quit';
    case '\u0003': // Ctrl-C
      return 'interrupt';
    default:
      return null;
  }
}

/**
 * The command in an answer: the first fenced block when there is one, else the answer; a leading
 * `$ ` prompt dropped, surrounding blank lines trimmed. Empty when the model gave no command.
 */
export function commandFromAnswer(answer: string): string {
  const text = (firstCodeBlock(answer) ?? answer).trim();
  return text
    .split('\n')
    .map((line) => line.replace(/^\$\s+/, ''))
    .join('\n')
    .trim();
}

/** What the terminal shows: the command (without its escape codes: it is the model's text) and the keys. */
export function shellPrompt(command: string): string {
  return `› ${sanitizeForTerminal(command).replace(/\n/g, '\n  ')}\n${SHELL_MENU}\n`;
}
