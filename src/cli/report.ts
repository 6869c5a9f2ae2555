import { ExitCode, GatechatError, type ExitCodeValue } from '../exit-codes.js';
import { sanitizeForTerminal } from '../render/terminal-text.js';

/**
 * One clear line (SPEC §4): what happened, then what to do. The message may quote the gateway, so it
 * goes through the terminal sanitiser (stderr is a terminal more often than not).
 */
export function formatError(error: GatechatError): string {
  return sanitizeForTerminal(`gatechat: ${error.message}${error.hint ? ` (${error.hint})` : ''}`);
}

/** Prints any thrown value as one line and returns the exit code it stands for. */
export function reportError(error: unknown, stderr: NodeJS.WritableStream, verbose: boolean): ExitCodeValue {
  if (error instanceof GatechatError) {
    stderr.write(`${formatError(error)}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`gatechat: internal error: ${sanitizeForTerminal(message)} (this is a bug: please report it, with --verbose output)\n`);
  if (verbose && error instanceof Error && error.stack) stderr.write(`${error.stack}\n`);
  return ExitCode.internal;
}
