import type { ChatEvent, EventSink, SseMessage, StreamDecoder, Termination } from './events.js';
import { describeStreamError } from './error-body.js';
import { isRecord, type JsonObject } from './json.js';

/**
 * A StreamDecoder that also says what it skipped (malformed `data:` lines, non-object payloads),
 * so `--verbose` can show it. Skipping instead of throwing keeps one bad chunk from losing the
 * rest of an answer.
 */
export interface ProtocolDecoder extends StreamDecoder {
  readonly warnings: readonly string[];
  /**
   * `data:` events whose JSON did not parse: what they carried is lost, so the answer is never
   * complete (SPEC §5.4). The first one's preview names it in the error line.
   */
  readonly damage: StreamDamage | null;
}

export interface StreamDamage {
  count: number;
  sample: string;
}

// A gateway that sends nothing but garbage must not grow memory without bound.
const MAX_WARNINGS = 50;
const PREVIEW = 80;

export class WarningLog {
  readonly list: string[] = [];
  #dropped = 0;
  damage: StreamDamage | null = null;

  /** A data event lost to broken JSON: a warning for -v, and damage for the error line. */
  malformed(data: string): void {
    if (this.damage === null) this.damage = { count: 0, sample: preview(data) };
    this.damage.count += 1;
    this.add(`skipped malformed SSE data (not JSON): ${preview(data)}`);
  }

  add(message: string): void {
    if (this.list.length < MAX_WARNINGS) {
      this.list.push(message);
      return;
    }
    this.#dropped += 1;
    const summary = `(${this.#dropped} more warnings not shown)`;
    if (this.#dropped === 1) this.list.push(summary);
    else this.list[this.list.length - 1] = summary;
  }
}

/** What both interfaces' decoders track the same way: the end marker, errors, the model, skips. */
export abstract class DecoderBase implements ProtocolDecoder {
  protected readonly warningLog = new WarningLog();
  protected isEnded = false;
  protected sawError = false;
  protected sawModel = false;

  get ended(): boolean {
    return this.isEnded;
  }

  get warnings(): readonly string[] {
    return this.warningLog.list;
  }

  get damage(): StreamDamage | null {
    return this.warningLog.damage;
  }

  abstract push(message: SseMessage): ChatEvent[];

  pushTo(message: SseMessage, sink: EventSink): void {
    for (const event of this.push(message)) sink.push(event);
  }
  abstract finish(): { events: ChatEvent[]; termination: Termination };
}

export function preview(data: string): string {
  return data.length > PREVIEW ? `${data.slice(0, PREVIEW)}…` : data;
}

/**
 * A `data:` payload that must be a JSON object; anything else is skipped with a warning (a payload that
 * does not parse is recorded as stream damage). One function, JSON.parse inside it: it runs for every
 * event of a stream, unoptimised in a one-shot (its tier-up is delayed), where each call level counts.
 */
export function objectData(message: SseMessage, warnings: WarningLog): JsonObject | undefined {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    warnings.malformed(message.data);
    return undefined;
  }
  if (isRecord(data)) return data;
  warnings.add(`skipped SSE data that is not a JSON object: ${preview(message.data)}`);
  return undefined;
}

export function errorEvent(payload: unknown): ChatEvent {
  const info = describeStreamError(payload);
  return { type: 'error', code: info.code, message: info.message, status: info.status };
}
