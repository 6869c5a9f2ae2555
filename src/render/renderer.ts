import type { ChatEvent } from '../protocol/events.js';
import type { TurnOutcome } from '../session/types.js';

/** A one-shot renderer consumes the same events the Ink UI does, then the outcome. */
export interface OneShotRenderer {
  event(event: ChatEvent): void | Promise<void>;
  end(outcome: TurnOutcome): void | Promise<void>;
}
