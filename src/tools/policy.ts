// Who approves a tool call (SPEC §15 "Approval"). One pure function, so the loop and `gatechat tools`
// (which shows what is allowed) can never disagree.

export type Decision = 'run' | 'ask' | 'deny';

export interface ApprovalPolicy {
  /** `--allow` patterns and config `allow`: `*` and `?` globs over the model-facing name. */
  allow: readonly string[];
  /** true in chat, and in one-shot when stdin and stderr are terminals: the user is asked. */
  interactive: boolean;
  /** Tools the user allowed for the rest of the session (`a` at the prompt). */
  sessionAllowed?: ReadonlySet<string>;
}

/** `*` any run of characters, `?` one; everything else literal. */
export function globMatches(pattern: string, name: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(name);
}

export function isAllowed(name: string, allow: readonly string[]): boolean {
  return allow.some((pattern) => globMatches(pattern, name));
}

/** What happens to a call of `name`: run it, ask the user, or deny it (scripts and batch never ask). */
export function decide(name: string, policy: ApprovalPolicy): Decision {
  if (isAllowed(name, policy.allow) || policy.sessionAllowed?.has(name)) return 'run';
  return policy.interactive ? 'ask' : 'deny';
}
