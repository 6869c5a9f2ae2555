/** The prompt line editor as a pure reducer: text, cursor, history walk, bracketed paste. */
export interface InputState {
  value: string;
  /** Cursor as a UTF-16 offset into value. */
  cursor: number;
  /** Oldest first. */
  history: string[];
  /** Index into history while walking it with Up/Down; null when editing a fresh line. */
  historyIndex: number | null;
  /** What was being typed before Up started the walk, restored by Down past the newest entry. */
  draft: string;
  /** Between ESC[200~ and ESC[201~: every key is literal text. */
  pasting: boolean;
}

export type InputAction =
  | { type: 'insert'; text: string }
  | { type: 'backspace' }
  | { type: 'delete' }
  | { type: 'delete-word-back' }
  | { type: 'kill-to-start' }
  | { type: 'kill-to-end' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'word-left' }
  | { type: 'word-right' }
  | { type: 'home' }
  | { type: 'end' }
  | { type: 'up' }
  | { type: 'down' }
  | { type: 'set'; value: string }
  | { type: 'clear' }
  | { type: 'remember'; text: string }
  | { type: 'paste'; active: boolean };

export const HISTORY_LIMIT = 1000;

export function initialInput(history: string[] = []): InputState {
  return { value: '', cursor: 0, history: history.slice(-HISTORY_LIMIT), historyIndex: null, draft: '', pasting: false };
}

function lineStart(value: string, cursor: number): number {
  return value.lastIndexOf('\n', cursor - 1) + 1;
}

function lineEnd(value: string, cursor: number): number {
  const i = value.indexOf('\n', cursor);
  return i === -1 ? value.length : i;
}

function wordLeft(value: string, cursor: number): number {
  let i = cursor;
  while (i > 0 && /\s/.test(value[i - 1]!)) i--;
  while (i > 0 && !/\s/.test(value[i - 1]!)) i--;
  return i;
}

function wordRight(value: string, cursor: number): number {
  let i = cursor;
  while (i < value.length && /\s/.test(value[i]!)) i++;
  while (i < value.length && !/\s/.test(value[i]!)) i++;
  return i;
}

/** Moves one UTF-16 unit, or two across a surrogate pair, so emoji are not cut in half. */
function stepBack(value: string, cursor: number): number {
  if (cursor <= 0) return 0;
  const low = value.charCodeAt(cursor - 1);
  return low >= 0xdc00 && low <= 0xdfff && cursor >= 2 ? cursor - 2 : cursor - 1;
}

function stepForward(value: string, cursor: number): number {
  if (cursor >= value.length) return value.length;
  const high = value.charCodeAt(cursor);
  return high >= 0xd800 && high <= 0xdbff && cursor + 2 <= value.length ? cursor + 2 : cursor + 1;
}

function edit(state: InputState, value: string, cursor: number): InputState {
  return { ...state, value, cursor, historyIndex: state.historyIndex === null ? null : state.historyIndex };
}

function moveVertically(state: InputState, direction: -1 | 1): InputState | null {
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
  switch (action.type) {
    case 'insert':
      return edit(state, value.slice(0, cursor) + action.text + value.slice(cursor), cursor + action.text.length);
    case 'backspace': {
      const to = stepBack(value, cursor);
      return to === cursor ? state : edit(state, value.slice(0, to) + value.slice(cursor), to);
    }
    case 'delete': {
      const to = stepForward(value, cursor);
      return to === cursor ? state : edit(state, value.slice(0, cursor) + value.slice(to), cursor);
    }
    case 'delete-word-back': {
      const to = wordLeft(value, cursor);
      return edit(state, value.slice(0, to) + value.slice(cursor), to);
    }
    case 'kill-to-start': {
      // Ctrl-U at the start of a line of a multi-line prompt joins nothing: it kills within the line.
      const start = lineStart(value, cursor);
      return edit(state, value.slice(0, start) + value.slice(cursor), start);
    }
    case 'kill-to-end': {
      const end = lineEnd(value, cursor);
      return edit(state, value.slice(0, cursor) + value.slice(end), cursor);
    }
    case 'left':
      return { ...state, cursor: stepBack(value, cursor) };
    case 'right':
      return { ...state, cursor: stepForward(value, cursor) };
    case 'word-left':
      return { ...state, cursor: wordLeft(value, cursor) };
    case 'word-right':
      return { ...state, cursor: wordRight(value, cursor) };
    case 'home':
      return { ...state, cursor: lineStart(value, cursor) };
    case 'end':
      return { ...state, cursor: lineEnd(value, cursor) };
    case 'up':
      return moveVertically(state, -1) ?? historyUp(state);
    case 'down':
      return moveVertically(state, 1) ?? historyDown(state);
    case 'set':
      return { ...state, value: action.value, cursor: action.value.length, historyIndex: null, draft: '' };
    case 'clear':
      return { ...state, value: '', cursor: 0, historyIndex: null, draft: '' };
    case 'remember':
      return { ...state, history: remember(state.history, action.text) };
    case 'paste':
      return { ...state, pasting: action.active };
    default: {
      const never: never = action;
      throw new Error(`unknown input action ${JSON.stringify(never)}`);
    }
  }
}
