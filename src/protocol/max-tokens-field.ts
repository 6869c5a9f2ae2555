export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

function other(field: MaxTokensField): MaxTokensField {
  switch (field) {
    case 'max_tokens':
      return 'max_completion_tokens';
    case 'max_completion_tokens':
      return 'max_tokens';
    default: {
      const never: never = field;
      return never;
    }
  }
}

/** Whole-word match: `max_tokens` must not match inside `max_completion_tokens` or `max_tokens_x`. */
function names(text: string, field: MaxTokensField): boolean {
  return new RegExp(`(?<![A-Za-z0-9_])${field}(?![A-Za-z0-9_])`).test(text);
}

// Older Azure-style rejections name only the field we sent ("Unrecognized request argument
// supplied: max_completion_tokens"); that is as clear a signal as naming the replacement.
const REJECTED = /unsupported|not supported|unrecognized|unknown|not allowed|not permitted|extra inputs/i;

/**
 * SPEC §5.3: newer models take `max_completion_tokens`, older gateways only `max_tokens`. A 400
 * that points at the other field means "switch once and retry"; anything else is a real error.
 */
export function otherMaxTokensField(
  status: number,
  info: { message: string; param: string | null },
  current: MaxTokensField,
): MaxTokensField | null {
  if (status !== 400) return null;
  const wanted = other(current);
  if (info.param === wanted || names(info.message, wanted)) return wanted;
  const rejectsCurrent = info.param === current || names(info.message, current);
  if (rejectsCurrent && REJECTED.test(info.message)) return wanted;
  return null;
}

const REQUIRED = /required|missing|must be (provided|specified|set|present)/i;

/**
 * SPEC §11: gateways that translate Chat Completions into the Messages format (Portkey with an
 * Anthropic provider) answer 400 when `max_tokens` is absent, since Messages requires it
 * (`max_tokens: Field required`). That means "send max_tokens once and retry".
 */
export function requiresMaxTokens(status: number, info: { message: string; param: string | null }): boolean {
  if (status !== 400) return false;
  return (info.param === 'max_tokens' || names(info.message, 'max_tokens')) && REQUIRED.test(info.message);
}
