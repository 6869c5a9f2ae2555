import { useEffect, useRef } from 'react';
import type { ChatAction, ChatState } from './chat-state.js';
import type { InputHistory } from './input-history.js';
import { completeAtCursor, type CompletionSources } from './input-completion.js';
import { expandedValue, type InputAction, type InputState } from './input-state.js';
import { resolveEnter, resolveKey, STILL_COMING } from './key-bindings.js';
import { approvalKeyOf } from './approval.js';
import { decodeKeys } from './keys.js';
import { labelChips } from './paste-chips.js';
import { useRawInput } from './use-raw-input.js';

/** Ctrl-C on an empty prompt arms exit for this long (SPEC §8), then a Ctrl-C arms it again. */
export const EXIT_ARMED_MS = 2000;

/** What the chat's keys act on. The states are refs: several keys can arrive in one read. */
export interface ChatKeyTargets {
  chat: { readonly current: ChatState };
  input: { readonly current: InputState };
  dispatch(action: ChatAction): void;
  dispatchInput(action: InputAction): void;
  /** The status line's hint, until the next key. */
  setHint(hint: string | null): void;
  history: InputHistory;
  /** A line sent with Enter (already in the history): a prompt or a slash command; `shown` is how the transcript echoes it. */
  sendLine(text: string, shown: string): void;
  cancelTurn(): void;
  requestExit(): void;
  /** Command, model and path names for Tab. */
  completion?: CompletionSources;
  /** Columns of the input box's text, for Up/Down by rows. */
  inputWidth?: () => number;
  /** Ctrl-G, Ctrl-X Ctrl-E: the draft (chips expanded) through $EDITOR, back into the box. */
  editDraft?(text: string): void;
  /** Ctrl-L and Ctrl-Z, where there is a real terminal. */
  terminal?: { redraw(): void; suspend(): void };
  /** A tool call waiting for approval (SPEC §15): y / a / n / Esc go to it, other text keys are held back. */
  approval?: { readonly current: ((key: 'y' | 'a' | 'n' | 'esc') => void) | null };
}

/**
 * The chat's keyboard: decodes each read into keys, asks key-bindings.ts what each key means now,
 * and does it. Which key does what is decided there (pure); this hook only carries it out.
 */
export function useChatKeys(app: ChatKeyTargets): void {
  const prefix = useRef<'ctrl-x' | null>(null);
  const disarm = useRef<NodeJS.Timeout | null>(null);
  useEffect(() => () => {
    if (disarm.current) clearTimeout(disarm.current);
  }, []);

  const submit = () => {
    const state = app.input.current;
    const { value } = state;
    const enter = resolveEnter(value, app.chat.current.live !== null);
    switch (enter.type) {
      case 'continue-line':
        return app.dispatchInput({ type: 'set', value: enter.value });
      case 'still-answering':
        return app.setHint(STILL_COMING);
      case 'send': {
        const text = expandedValue(state);
        app.history.append(text);
        app.dispatchInput({ type: 'remember', text });
        app.dispatchInput({ type: 'clear' });
        return app.sendLine(text, labelChips(value, state.pastes));
      }
      case 'none':
        return;
      default: {
        const never: never = enter;
        throw new Error(`unknown enter intent ${JSON.stringify(never)}`);
      }
    }
  };

  const complete = () => {
    const { value, cursor } = app.input.current;
    const result = completeAtCursor(value, cursor, app.completion);
    if (!result) return;
    if (result.kind === 'wait') {
      app.setHint(result.hint);
      // Tab again once the list is here, if the draft is still what it was.
      void result.until.then(() => {
        if (app.input.current.value === value && app.input.current.cursor === cursor) complete();
      });
      return;
    }
    app.dispatchInput({ type: 'replace', from: result.from, to: result.to, text: result.text });
    if (result.hint) app.setHint(result.hint);
  };

  useRawInput((raw) => {
    for (const key of decodeKeys(raw)) {
      const answer = app.approval?.current;
      if (answer) {
        const chosen = approvalKeyOf(key);
        if (chosen) answer(chosen);
        // Ctrl-C still cancels the turn (and with it the question); anything else waits for an answer.
        if (!(key.kind === 'ctrl' && key.key === 'c')) continue;
      }
      const state = app.input.current;
      const { live, exitArmed } = app.chat.current;
      const intent = resolveKey(key, { busy: live !== null, empty: state.value === '', exitArmed, pasting: state.pasting, prefix: prefix.current });
      prefix.current = null;
      if (exitArmed && intent.type !== 'exit' && intent.type !== 'arm-exit') app.dispatch({ type: 'arm-exit', armed: false });
      if (intent.type !== 'none') app.setHint(null);
      switch (intent.type) {
        case 'edit': {
          const { action } = intent;
          app.dispatchInput(action.type === 'up' || action.type === 'down' ? { ...action, width: app.inputWidth?.() } : action);
          break;
        }
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
          if (disarm.current) clearTimeout(disarm.current);
          disarm.current = setTimeout(() => app.dispatch({ type: 'arm-exit', armed: false }), EXIT_ARMED_MS);
          break;
        case 'clear-input':
          // Cleared text stays reachable with Up for this session.
          app.dispatchInput({ type: 'remember', text: expandedValue(state) });
          app.dispatchInput({ type: 'clear' });
          break;
        case 'complete':
          complete();
          break;
        case 'toggle-reasoning':
          app.dispatch({ type: 'toggle-reasoning' });
          break;
        case 'open-editor':
          app.editDraft?.(expandedValue(state));
          break;
        case 'redraw':
          app.terminal?.redraw();
          break;
        case 'suspend':
          app.terminal?.suspend();
          break;
        case 'prefix':
          prefix.current = intent.prefix;
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
