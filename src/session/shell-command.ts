import { basename } from 'node:path';

// SPEC §18 shell mode: what the model is asked. The prompt itself goes as the user's message unchanged.

const OS_NAMES: Partial<Record<NodeJS.Platform, string>> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows', freebsd: 'FreeBSD', openbsd: 'OpenBSD' };

/** The shell a command runs in: `$SHELL`, else /bin/sh. */
export function userShell(env: NodeJS.ProcessEnv = process.env): string {
  return env.SHELL || '/bin/sh';
}

/** The system prompt of `-e`: one command for this OS and shell, nothing around it; `extra` is the user's -s. */
export function shellSystemPrompt(platform: NodeJS.Platform, shell: string, cwd: string, extra?: string): string {
  const os = OS_NAMES[platform] ?? platform;
  const prompt =
    `You turn requests into shell commands. Reply with exactly one command for ${os} in ${basename(shell)} ` +
    `(the working directory is ${cwd}): no explanation, no Markdown, no code fence. Join several steps with && ` +
    'or a pipeline on one line. If the request cannot be done with a command, reply with a command that prints why.';
  return extra ? `${prompt}\n\n${extra}` : prompt;
}

/** The system prompt of `d` (describe). */
export const DESCRIBE_SYSTEM_PROMPT = 'You explain shell commands to the person about to run them: what each part does and what could go wrong, in a few short sentences. No Markdown headings.';

export const describeRequest = (command: string): string => `Explain briefly what this command does:\n\n${command}`;
