import type { InputAction } from './input-state.js';
import type { KeyEvent } from './keys.js';

/** What a key means right now. The app performs it; this table is the single place keys are bound. */
export type Intent =
  | { type: 'edit'; action: InputAction }
  | { type: 'submit' }
  | { type: 'cancel-turn' }
  | { type: 'exit' }
  | { type: 'arm-exit' }
  | { type: 'clear-input' }
  | { type: 'complete' }
  | { type: 'toggle-reasoning' }
  /** Ctrl-G, Ctrl-X Ctrl-E: the draft in $VISUAL / $EDITOR, back into the box. */
  | { type: 'open-editor' }
  /** Ctrl-L */
  | { type: 'redraw' }
  /** Ctrl-Z */
  | { type: 'suspend' }
  /** Ctrl-X: the next key completes a two-key binding. */
  | { type: 'prefix'; prefix: 'ctrl-x' }
  | { type: 'none' };

export interface KeyContext {
  busy: boolean;
  empty: boolean;
  exitArmed: boolean;
  pasting: boolean;
  /** The first key of a two-key binding, pressed just before. */
  prefix?: 'ctrl-x' | null;
}

const edit = (action: InputAction): Intent => ({ type: 'edit', action });

const CTRL_EDITS: Record<string, InputAction> = {
  a: { type: 'home' },
  e: { type: 'end' },
  b: { type: 'left' },
  f: { type: 'right' },
  u: { type: 'kill-to-start' },
  k: { type: 'kill-to-end' },
  w: { type: 'delete-to-space-back' },
  p: { type: 'up' },
  n: { type: 'down' },
};

function whilePasting(key: KeyEvent): Intent {
  switch (key.kind) {
    case 'text':
      return edit({ type: 'insert', text: key.text });
    case 'enter':
    case 'newline':
      return edit({ type: 'insert', text: '\n' });
    case 'tab':
      return edit({ type: 'insert', text: '\t' });
    case 'paste-end':
      return edit({ type: 'paste', active: false });
    default:
      return { type: 'none' };
  }
}

export function resolveKey(key: KeyEvent, ctx: KeyContext): Intent {
  if (ctx.pasting) return whilePasting(key);
  switch (key.kind) {
    case 'text':
      return edit({ type: 'insert', text: key.text });
    case 'paste-start':
      return edit({ type: 'paste', active: true });
    case 'paste-end':
      return { type: 'none' };
    case 'enter':
      return { type: 'submit' };
    case 'newline':
      return edit({ type: 'insert', text: '\n' });
    case 'backspace':
    case 'delete':
    case 'delete-word-back':
    case 'delete-word-forward':
    case 'left':
    case 'right':
    case 'word-left':
    case 'word-right':
    case 'up':
    case 'down':
    case 'home':
    case 'end':
      return edit({ type: key.kind });
    case 'tab':
      return { type: 'complete' };
    case 'escape':
      return ctx.busy ? { type: 'cancel-turn' } : { type: 'none' };
    case 'ctrl':
      return resolveCtrl(key.key, ctx);
    case 'ignored':
      return { type: 'none' };
    default: {
      const never: never = key;
      throw new Error(`unknown key ${JSON.stringify(never)}`);
    }
  }
}

function resolveCtrl(letter: string, ctx: KeyContext): Intent {
  if (ctx.prefix === 'ctrl-x' && letter === 'e') return { type: 'open-editor' };
  if (letter === 'x') return { type: 'prefix', prefix: 'ctrl-x' };
  if (letter === 'g') return { type: 'open-editor' };
  if (letter === 'l') return { type: 'redraw' };
  if (letter === 'z') return { type: 'suspend' };
  if (letter === 'c') {
    if (ctx.busy) return { type: 'cancel-turn' };
    if (!ctx.empty) return { type: 'clear-input' };
    return ctx.exitArmed ? { type: 'exit' } : { type: 'arm-exit' };
  }
  if (letter === 'd') return ctx.empty ? { type: 'exit' } : edit({ type: 'delete' });
  if (letter === 'r') return { type: 'toggle-reasoning' };
  const action = CTRL_EDITS[letter];
  return action ? edit(action) : { type: 'none' };
}

/** What Enter does with the text typed so far. */
export type EnterIntent =
  | { type: 'continue-line'; value: string }
  | { type: 'none' }
  | { type: 'still-answering' }
  | { type: 'send'; text: string };

/** The status line's answer to Enter while an answer streams: one prompt at a time. */
export const STILL_COMING = 'an answer is still coming: Esc cancels it';

/**
 * Enter sends the prompt, except: a trailing backslash continues it on a new line (as in a shell,
 * also while an answer streams), blank text sends nothing, and nothing is sent while `busy`.
 */
export function resolveEnter(value: string, busy: boolean): EnterIntent {
  if (value.endsWith('\\')) return { type: 'continue-line', value: `${value.slice(0, -1)}\n` };
  if (!value.trim()) return { type: 'none' };
  if (busy) return { type: 'still-answering' };
  return { type: 'send', text: value };
}
