/** SPEC §4 exit codes. One place, so every layer names them the same way. */
export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  auth: 3,
  rejected: 4,
  rateLimited: 5,
  server: 6,
  network: 7,
  truncated: 8,
  /** --schema: the answer is not JSON matching the schema (the answer is still printed). */
  SchemaMismatch: 9,
  /** The tool loop stopped at --max-steps before a final answer (SPEC §15). */
  maxSteps: 10,
  /** A budget was reached: --max-cost or budget-daily (SPEC §16). */
  budget: 11,
  interrupted: 130,
  terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An error that ends the program with a known exit code and one clear line. `hint` is the
 * "what to do" part (e.g. `run: gatechat config set api-key`). Messages must never contain secrets.
 */
export class GatechatError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'GatechatError';
  }
}

/** Bad flag, bad config, bad input: nothing was sent (exit 2). */
export class UsageError extends GatechatError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
    this.name = 'UsageError';
  }
}
