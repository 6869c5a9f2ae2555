/**
 * The prompt line editor as a pure reducer: text, cursor, history walk, bracketed paste. The cursor
 * moves and deletes whole graphemes (graphemes.ts) — a ZWJ emoji, a letter with its accents, a paste
 * chip (paste-chips.ts) — and words stop at punctuation as in readline.
 */
import { nextBoundary, previousBoundary, spaceWordStartBefore, wordEndAfter, wordStartBefore } from './graphemes.js';
import { columnIn, cursorRow, layoutRows, offsetAtColumn } from './input-layout.js';
import { chipChar, chipLabel, expandChips, isBigPaste, withoutChipChars } from './paste-chips.js';

export interface InputState {
  value: string;
  /** Cursor as a UTF-16 offset into value, always on a grapheme boundary. */
  cursor: number;
  /** Oldest first. */
  history: string[];
  /** Index into history while walking it with Up/Down; null when editing a fresh line. */
  historyIndex: number | null;
  /** What was being typed before Up started the walk, restored by Down past the newest entry. */
  draft: string;
  /** Between ESC[200~ and ESC[201~: every key is literal text, gathered in `pasted`. */
  pasting: boolean;
  pasted: string;
  /** The text of each paste chip in `value` (chip n is pastes[n]). */
  pastes: string[];
}

export type InputAction =
  | { type: 'insert'; text: string }
  | { type: 'backspace' }
  | { type: 'delete' }
  /** Alt+Backspace (readline's backward-kill-word). */
  | { type: 'delete-word-back' }
  /** Alt+d (kill-word). */
  | { type: 'delete-word-forward' }
  /** Ctrl-W (unix-word-rubout: back to whitespace). */
  | { type: 'delete-to-space-back' }
  | { type: 'kill-to-start' }
  | { type: 'kill-to-end' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'word-left' }
  | { type: 'word-right' }
  | { type: 'home' }
  | { type: 'end' }
  /** Up/Down move a row of the box (`width` columns; by lines without it), past the edge: history. */
  | { type: 'up'; width?: number }
  | { type: 'down'; width?: number }
  | { type: 'set'; value: string }
  /** Replaces value[from, to) (a completed word) and puts the cursor after it. */
  | { type: 'replace'; from: number; to: number; text: string }
  | { type: 'clear' }
  | { type: 'remember'; text: string }
  | { type: 'paste'; active: boolean };

export const HISTORY_LIMIT = 1000;

export function initialInput(history: string[] = []): InputState {
  return { value: '', cursor: 0, history: history.slice(-HISTORY_LIMIT), historyIndex: null, draft: '', pasting: false, pasted: '', pastes: [] };
}

/** The draft as it is sent: every chip replaced by its text. */
export function expandedValue(state: InputState): string {
  return expandChips(state.value, state.pastes);
}

/** How chip n is drawn. */
export function chipLabelOf(state: InputState): (n: number) => string {
  return (n) => chipLabel(n, state.pastes[n] ?? '');
}

function lineStart(value: string, cursor: number): number {
  return value.lastIndexOf('\n', cursor - 1) + 1;
}

function lineEnd(value: string, cursor: number): number {
  const i = value.indexOf('\n', cursor);
  return i === -1 ? value.length : i;
}

function edit(state: InputState, value: string, cursor: number): InputState {
  return { ...state, value, cursor };
}

function remove(state: InputState, from: number, to: number): InputState {
  if (from === to) return state;
  return edit(state, state.value.slice(0, from) + state.value.slice(to), from);
}

/** Typed or pasted text at the cursor; a big paste becomes one chip. */
function insert(state: InputState, raw: string): InputState {
  const text = withoutChipChars(raw);
  if (!text) return state;
  if (isBigPaste(text)) {
    const chip = chipChar(state.pastes.length);
    const next = { ...state, pastes: [...state.pastes, text] };
    return edit(next, state.value.slice(0, state.cursor) + chip + state.value.slice(state.cursor), state.cursor + chip.length);
  }
  return edit(state, state.value.slice(0, state.cursor) + text + state.value.slice(state.cursor), state.cursor + text.length);
}

function moveByLines(state: InputState, direction: -1 | 1): InputState | null {
  const { value, cursor } = state;
  const start = lineStart(value, cursor);
  const column = cursor - start;
  if (direction === -1) {
    if (start === 0) return null;
    const prevStart = lineStart(value, start - 1);
    return { ...state, cursor: Math.min(prevStart + column, start - 1) };
  }
  const end = lineEnd(value, cursor);
  if (end === value.length) return null;
  const nextEnd = lineEnd(value, end + 1);
  return { ...state, cursor: Math.min(end + 1 + column, nextEnd) };
}

/** Up/Down by rows of the box, keeping the cursor's column; null at the first or last row. */
function moveVertically(state: InputState, direction: -1 | 1, width: number | undefined): InputState | null {
  if (width === undefined) return moveByLines(state, direction);
  const label = chipLabelOf(state);
  const rows = layoutRows(state.value, width, label, state.cursor);
  const at = cursorRow(rows, state.cursor);
  const target = rows[at + direction];
  if (!target) return null;
  const column = columnIn(state.value, rows[at]!, state.cursor, label, width);
  return { ...state, cursor: offsetAtColumn(state.value, target, column, label, width) };
}

function historyUp(state: InputState): InputState {
  if (state.history.length === 0) return state;
  if (state.historyIndex === null) {
    const index = state.history.length - 1;
    const value = state.history[index]!;
    return { ...state, draft: state.value, historyIndex: index, value, cursor: value.length };
  }
  if (state.historyIndex === 0) return state;
  const index = state.historyIndex - 1;
  const value = state.history[index]!;
  return { ...state, historyIndex: index, value, cursor: value.length };
}

function historyDown(state: InputState): InputState {
  if (state.historyIndex === null) return state;
  if (state.historyIndex >= state.history.length - 1) {
    return { ...state, historyIndex: null, value: state.draft, cursor: state.draft.length, draft: '' };
  }
  const index = state.historyIndex + 1;
  const value = state.history[index]!;
  return { ...state, historyIndex: index, value, cursor: value.length };
}

/** Adds an entry to the in-memory history, skipping a repeat of the newest one. */
export function remember(history: string[], text: string): string[] {
  if (!text.trim() || history[history.length - 1] === text) return history;
  const next = [...history, text];
  return next.length > HISTORY_LIMIT ? next.slice(next.length - HISTORY_LIMIT) : next;
}

export function inputReducer(state: InputState, action: InputAction): InputState {
  const { value, cursor } = state;
  // While pasting, text is gathered and lands at the end of the paste, as one piece or one chip.
  if (state.pasting && action.type === 'insert') return { ...state, pasted: state.pasted + action.text };
  switch (action.type) {
    case 'insert':
      return insert(state, action.text);
    case 'backspace':
      return remove(state, previousBoundary(value, cursor), cursor);
    case 'delete':
      return remove(state, cursor, nextBoundary(value, cursor));
    case 'delete-word-back':
      return remove(state, wordStartBefore(value, cursor), cursor);
    case 'delete-word-forward':
      return remove(state, cursor, wordEndAfter(value, cursor));
    case 'delete-to-space-back':
      return remove(state, spaceWordStartBefore(value, cursor), cursor);
    case 'kill-to-start':
      // Ctrl-U at the start of a line of a multi-line prompt joins nothing: it kills within the line.
      return remove(state, lineStart(value, cursor), cursor);
    case 'kill-to-end':
      return remove(state, cursor, lineEnd(value, cursor));
    case 'left':
      return { ...state, cursor: previousBoundary(value, cursor) };
    case 'right':
      return { ...state, cursor: nextBoundary(value, cursor) };
    case 'word-left':
      return { ...state, cursor: wordStartBefore(value, cursor) };
    case 'word-right':
      return { ...state, cursor: wordEndAfter(value, cursor) };
    case 'home':
      return { ...state, cursor: lineStart(value, cursor) };
    case 'end':
      return { ...state, cursor: lineEnd(value, cursor) };
    case 'up':
      return moveVertically(state, -1, action.width) ?? historyUp(state);
    case 'down':
      return moveVertically(state, 1, action.width) ?? historyDown(state);
    case 'set':
      return { ...state, value: action.value, cursor: action.value.length, historyIndex: null, draft: '' };
    case 'replace': {
      const next = value.slice(0, action.from) + action.text + value.slice(action.to);
      return { ...state, value: next, cursor: action.from + action.text.length };
    }
    case 'clear':
      return { ...state, value: '', cursor: 0, historyIndex: null, draft: '', pastes: [] };
    case 'remember':
      return { ...state, history: remember(state.history, action.text) };
    case 'paste':
      if (action.active) return { ...state, pasting: true, pasted: '' };
      return insert({ ...state, pasting: false, pasted: '' }, state.pasted);
    default: {
      const never: never = action;
      throw new Error(`unknown input action ${JSON.stringify(never)}`);
    }
  }
}
