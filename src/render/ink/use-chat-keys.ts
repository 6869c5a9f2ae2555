import type { ChatAction, ChatState } from './chat-state.js';
import { tabCompletion } from './commands.js';
import type { InputHistory } from './input-history.js';
import type { InputAction, InputState } from './input-state.js';
import { resolveEnter, resolveKey, STILL_COMING } from './key-bindings.js';
import { decodeKeys } from './keys.js';
import type { ModelCatalog } from './slash-commands.js';
import { useRawInput } from './use-raw-input.js';

/** What the chat's keys act on. The states are refs: several keys can arrive in one read. */
export interface ChatKeyTargets {
  chat: { readonly current: ChatState };
  input: { readonly current: InputState };
  dispatch(action: ChatAction): void;
  dispatchInput(action: InputAction): void;
  /** The status line's hint, until the next key. */
  setHint(hint: string | null): void;
  history: InputHistory;
  /** A line sent with Enter (already in the history): a prompt or a slash command. */
  sendLine(text: string): void;
  cancelTurn(): void;
  requestExit(): void;
  models?: ModelCatalog;
}

/**
 * The chat's keyboard: decodes each read into keys, asks key-bindings.ts what each key means now,
 * and does it. Which key does what is decided there (pure); this hook only carries it out.
 */
export function useChatKeys(app: ChatKeyTargets): void {
  const submit = () => {
    const { value } = app.input.current;
    const enter = resolveEnter(value, app.chat.current.live !== null);
    switch (enter.type) {
      case 'continue-line':
        return app.dispatchInput({ type: 'set', value: enter.value });
      case 'still-answering':
        return app.setHint(STILL_COMING);
      case 'send':
        app.history.append(enter.text);
        app.dispatchInput({ type: 'remember', text: enter.text });
        app.dispatchInput({ type: 'clear' });
        return app.sendLine(enter.text);
      case 'none':
        return;
      default: {
        const never: never = enter;
        throw new Error(`unknown enter intent ${JSON.stringify(never)}`);
      }
    }
  };

  useRawInput((raw) => {
    for (const key of decodeKeys(raw)) {
      const state = app.input.current;
      const { live, exitArmed } = app.chat.current;
      const intent = resolveKey(key, { busy: live !== null, empty: state.value === '', exitArmed, pasting: state.pasting });
      if (exitArmed && intent.type !== 'exit' && intent.type !== 'arm-exit') app.dispatch({ type: 'arm-exit', armed: false });
      if (intent.type !== 'none') app.setHint(null);
      switch (intent.type) {
        case 'edit':
          app.dispatchInput(intent.action);
          break;
        case 'submit':
          submit();
          break;
        case 'cancel-turn':
          app.cancelTurn();
          break;
        case 'exit':
          app.requestExit();
          break;
        case 'arm-exit':
          app.dispatch({ type: 'arm-exit', armed: true });
          break;
        case 'clear-input':
          // Cleared text stays reachable with Up for this session.
          app.dispatchInput({ type: 'remember', text: state.value });
          app.dispatchInput({ type: 'clear' });
          break;
        case 'complete': {
          const models = app.models;
          const completion = tabCompletion(state.value, models && (() => models.names()));
          if (!completion) break;
          app.dispatchInput({ type: 'set', value: completion.value });
          if (completion.hint) app.setHint(completion.hint);
          break;
        }
        case 'toggle-reasoning':
          app.dispatch({ type: 'toggle-reasoning' });
          break;
        case 'none':
          break;
        default: {
          const never: never = intent;
          throw new Error(`unknown intent ${JSON.stringify(never)}`);
        }
      }
    }
  });
}
