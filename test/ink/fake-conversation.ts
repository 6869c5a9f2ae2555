import type { Attachment, ChatEvent, ChatResult } from '../../src/protocol/events.js';
import type { Conversation, FinishedTurn, SessionSettings, TurnOutcome } from '../../src/session/types.js';

/** A Conversation that answers from a script: each prompt gets `answer(prompt)` word by word. */
export class FakeConversation implements Conversation {
  settings: SessionSettings = { model: 'fake-model', api: 'chat', stream: true };
  cid: string | null = null;
  turns: FinishedTurn[] = [];
  sent: string[] = [];
  /** The attachments of each send, in order. */
  sentAttachments: Attachment[][] = [];
  /** ms between words; 0 answers at once. */
  delayMs = 0;
  answer: (prompt: string) => string = (prompt) => `You said: ${prompt}`;

  update(patch: Partial<SessionSettings>): void {
    this.settings = { ...this.settings, ...patch };
  }

  clear(): void {
    this.turns = [];
  }

  send(prompt: string, signal: AbortSignal, attachments: Attachment[] = []): AsyncGenerator<ChatEvent, TurnOutcome, void> {
    this.sent.push(prompt);
    this.sentAttachments.push(attachments);
    return this.run(prompt, signal);
  }

  /** The options of each retry, in order. */
  retries: Array<{ keep?: boolean; model: string }> = [];

  retry(signal: AbortSignal, options: { keep?: boolean } = {}): AsyncGenerator<ChatEvent, TurnOutcome, void> | null {
    this.retries.push({ ...options, model: this.settings.model });
    const last = this.turns.pop();
    return last ? this.send(last.prompt, signal) : null;
  }

  private async *run(prompt: string, signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> {
    let text = '';
    let status: TurnOutcome['status'] = 'complete';
    for (const word of this.answer(prompt).split(/(?<= )/)) {
      if (this.delayMs) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.delayMs);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          }, { once: true });
        });
      }
      if (signal.aborted) {
        status = 'cancelled';
        break;
      }
      text += word;
      yield { type: 'text', delta: word };
    }
    yield { type: 'usage', input_tokens: 4, output_tokens: text.split(' ').length };
    const result: ChatResult = {
      text, reasoning: null, tool_calls: [], finish_reason: status === 'complete' ? 'stop' : 'cancelled', raw_finish_reason: null,
      usage: { input_tokens: 4, output_tokens: text.split(' ').length }, model: this.settings.model, api: this.settings.api, cid: null,
    };
    this.turns.push({ prompt, result, status });
    return { status, result, timings: { firstTokenMs: 1, totalMs: 10 } };
  }
}
