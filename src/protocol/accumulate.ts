import type { Api, ChatEvent, ChatResult, FinishReason, ToolCall } from './events.js';
import { costOf, type Prices } from './cost.js';

export type TurnOutcomeKind = 'complete' | 'error' | 'cancelled' | 'interrupted';

export interface ResultMeta {
  api: Api;
  cid: string | null;
  outcome: TurnOutcomeKind;
  /** The model's prices, when known: the cost when the gateway sent no figure of its own (SPEC §16). */
  prices?: Prices | null;
}

/** A result's accumulator, not enumerable: spread and JSON.stringify never see it. */
const SOURCE = Symbol('accumulator');

type Sourced = { [SOURCE]?: ResultAccumulator };

/** The one `text` getter of every result: the accumulator's text, joined when first read. */
const TEXT_GETTER: PropertyDescriptor = {
  get(this: Sourced): string {
    return this[SOURCE]!.text;
  },
  enumerable: true,
  configurable: true,
};

/** The parts a result's text is made of, when it came from an accumulator and was not joined yet. */
export function textPartsOf(result: ChatResult): readonly string[] | undefined {
  return (result as Sourced)[SOURCE]?.textParts();
}

/** Folds a turn's events into the `--json` object (SPEC §4). */
export class ResultAccumulator {
  // Parts are joined lazily so thousands of small deltas stay linear.
  #textParts: string[] = [];
  #textLength = 0;
  readonly #keepText: boolean;

  /**
   * keepText: false counts the answer without holding it, for callers that stream it elsewhere
   * (a 50 MB answer piped to a file must not also sit in memory); `result().text` is then ''.
   */
  constructor(options: { keepText?: boolean } = {}) {
    this.#keepText = options.keepText ?? true;
  }

  /** Whether any answer text arrived (kept or not). */
  get hasText(): boolean {
    return this.#textLength > 0;
  }
  #reasoningParts: string[] = [];
  #reasoningBlocks: Record<string, unknown>[] = [];

  /** Messages thinking / redacted_thinking blocks as they arrived (SPEC §15 replay inside a tool loop). */
  get reasoningBlocks(): Record<string, unknown>[] {
    return [...this.#reasoningBlocks];
  }
  #toolCalls: ToolCall[] = [];
  #inputTokens: number | null = null;
  #outputTokens: number | null = null;
  #cacheReadTokens: number | null = null;
  #cacheWriteTokens: number | null = null;
  #gatewayCost: number | null = null;
  #finish: { reason: FinishReason; raw: string | null } | null = null;
  #model: string | null = null;

  add(e: ChatEvent): void {
    switch (e.type) {
      case 'text':
        this.#textLength += e.delta.length;
        if (e.delta !== '' && this.#keepText) this.#textParts.push(e.delta);
        return;
      case 'reasoning':
        if (e.delta !== '') this.#reasoningParts.push(e.delta);
        if (e.block) this.#reasoningBlocks.push(e.block);
        return;
      case 'tool_call':
        this.#toolCalls.push({ id: e.id, name: e.name, arguments: e.arguments });
        return;
      case 'usage':
        this.#inputTokens = e.input_tokens ?? this.#inputTokens;
        this.#outputTokens = e.output_tokens ?? this.#outputTokens;
        this.#cacheReadTokens = e.cache_read_tokens ?? this.#cacheReadTokens;
        this.#cacheWriteTokens = e.cache_write_tokens ?? this.#cacheWriteTokens;
        this.#gatewayCost = e.cost ?? this.#gatewayCost;
        return;
      case 'finish':
        this.#finish = { reason: e.reason, raw: e.raw };
        return;
      case 'model':
        this.#model = e.model;
        return;
      case 'error':
        // The caller decides the outcome; the error itself is reported by the renderer.
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  }

  /** The gateway's own cost figure, if it sent one: then no prices need looking up. */
  get gatewayCost(): number | null {
    return this.#gatewayCost;
  }

  get text(): string {
    if (this.#textParts.length > 1) this.#textParts = [this.#textParts.join('')];
    return this.#textParts[0] ?? '';
  }

  get reasoning(): string | null {
    if (this.#reasoningParts.length === 0) return null;
    if (this.#reasoningParts.length > 1) this.#reasoningParts = [this.#reasoningParts.join('')];
    return this.#reasoningParts[0];
  }

  /**
   * The answer's text is joined only when something reads `text`: `--json` writes a long answer from its
   * parts (`textPartsOf`), so a 256 MiB answer is never held twice (SPEC §20 limits).
   */
  result(meta: ResultMeta): ChatResult {
    const usage = {
      input_tokens: this.#inputTokens,
      output_tokens: this.#outputTokens,
      cache_read_tokens: this.#cacheReadTokens,
      cache_write_tokens: this.#cacheWriteTokens,
    };
    // `text` first, as an own enumerable getter (spread and JSON.stringify read it), but one getter for
    // every result: a getter written in the literal is a new function each time, so each result got
    // its own hidden class, and a 100 000-line batch promoted every one of them to the old space
    // (issue 19: 35 MB per 50 000 remote results). The accumulator sits behind a symbol.
    const result = {} as ChatResult;
    Object.defineProperty(result, 'text', TEXT_GETTER);
    Object.defineProperty(result, SOURCE, { value: this });
    result.reasoning = this.reasoning;
    result.tool_calls = [...this.#toolCalls];
    result.finish_reason = this.#finish?.reason ?? this.#fallbackFinish(meta.outcome);
    result.raw_finish_reason = this.#finish?.raw ?? null;
    result.usage = usage;
    result.model = this.#model;
    result.api = meta.api;
    result.cid = meta.cid;
    result.cost = costOf(this.#gatewayCost, usage, meta.prices ?? null);
    return result;
  }

  /** The parts the text is made of (joined or not yet). */
  textParts(): string[] {
    return this.#textParts;
  }

  /**
   * When the model never said why it stopped, say why the turn ended instead (always one of the
   * documented reasons, SPEC §4). Tool calls mean the model handed over to tools, even when the
   * stream was cut after them; any other cut is an `error`.
   */
  #fallbackFinish(outcome: TurnOutcomeKind): FinishReason {
    switch (outcome) {
      case 'cancelled':
        return 'cancelled';
      case 'error':
        return 'error';
      case 'complete':
      case 'interrupted':
        if (this.#toolCalls.length > 0) return 'tool_calls';
        return outcome === 'complete' ? 'stop' : 'error';
      default: {
        const never: never = outcome;
        return never;
      }
    }
  }
}
