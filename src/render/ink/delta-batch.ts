import type { ChatEvent, ToolCall } from '../../protocol/events.js';

/** Events gathered between two UI updates (≈30 ms), so the UI renders per batch, not per token. */
export interface DeltaBatch {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage: { input_tokens: number | null; output_tokens: number | null } | null;
  model: string | null;
  /** Error events inside the stream (the outcome reports them too; kept for the live view). */
  errors: string[];
  /** Text and reasoning deltas: about one token each, counted until the gateway reports usage. */
  deltas: number;
}

export function emptyBatch(): DeltaBatch {
  return { text: '', reasoning: '', toolCalls: [], usage: null, model: null, errors: [], deltas: 0 };
}

export function isEmptyBatch(batch: DeltaBatch): boolean {
  return !batch.text && !batch.reasoning && batch.toolCalls.length === 0 && !batch.usage && !batch.model && batch.errors.length === 0;
}

/** Mutates the batch: it is private to the turn driver until handed to the reducer. */
export function addEvent(batch: DeltaBatch, event: ChatEvent): void {
  switch (event.type) {
    case 'text':
      batch.text += event.delta;
      batch.deltas += event.pieces ?? 1;
      return;
    case 'reasoning':
      batch.reasoning += event.delta;
      batch.deltas += event.pieces ?? 1;
      return;
    case 'tool_call':
      batch.toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
      return;
    case 'usage':
      batch.usage = {
        input_tokens: event.input_tokens ?? batch.usage?.input_tokens ?? null,
        output_tokens: event.output_tokens ?? batch.usage?.output_tokens ?? null,
      };
      return;
    case 'model':
      batch.model = event.model;
      return;
    case 'error':
      batch.errors.push(event.message);
      return;
    case 'finish':
      return;
    default: {
      const never: never = event;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}
