// SPEC §17: a request larger than the model's context window comes back as a 400 whose wording
// differs per vendor; the window's size is usually in it. Pure: the session learns it and retries.
//
//   OpenAI, vLLM, OpenRouter, LiteLLM: "This model's maximum context length is 8192 tokens. However,
//     your messages resulted in 9000 tokens…" (code context_length_exceeded)
//   Anthropic: "prompt is too long: 208310 tokens > 200000 maximum"; "input length and `max_tokens`
//     exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again"
//   Others (Groq, Mistral, Together …): "… context length … exceeded", "too many tokens", with or
//     without a number.

const WINDOW_PATTERNS: readonly RegExp[] = [
  /maximum context length (?:is|of) (\d[\d,_]*)/i,
  /context (?:length|window|size)(?: limit)?(?: is| of)? (\d[\d,_]*) tokens/i,
  /tokens? > (\d[\d,_]*) maximum/i,
  /exceeds? (?:the )?context limit: [\d,_ +]+ > (\d[\d,_]*)/i,
  /> (\d[\d,_]*)(?: tokens)?,? (?:the )?(?:model'?s? )?(?:maximum|max|limit)/i,
];

const OVERFLOW_WORDS = /context[ _-]?(?:length|window|limit)|prompt is too long|too many tokens|maximum context|input (?:is )?too long|exceeds? (?:the )?(?:model'?s? )?(?:max|maximum|context)/i;

export interface ContextOverflow {
  /** The window the gateway named, in tokens; null when it said only that the request was too long. */
  window: number | null;
}

/** Whether a rejected request was too long for the model's context, and the window when it says. */
export function contextOverflow(status: number, info: { message: string; code: string | number | null }): ContextOverflow | null {
  if (status !== 400 && status !== 413) return null;
  const coded = info.code === 'context_length_exceeded' || info.code === 'string_above_max_length';
  if (!coded && !OVERFLOW_WORDS.test(info.message)) return null;
  for (const pattern of WINDOW_PATTERNS) {
    const match = pattern.exec(info.message);
    const window = match ? Number(match[1]!.replace(/[,_]/g, '')) : NaN;
    if (Number.isSafeInteger(window) && window > 0) return { window };
  }
  return { window: null };
}
