import { useEffect } from 'react';
import type { ChatAction, StaticItem } from './chat-state.js';

/**
 * After each commit, lets go of the text <Static> has printed. Ink writes new static items during the
 * commit that adds them (an immediate render), so by the time this effect runs they are on the
 * screen; the id of the last committed item marks what is safe to drop, whatever was dispatched since.
 */
export function useForgetPrinted(items: readonly StaticItem[], dispatch: (action: ChatAction) => void): void {
  const last = items.at(-1)?.id;
  useEffect(() => {
    if (last !== undefined) dispatch({ type: 'forget-printed', through: last });
  }, [last, dispatch]);
}
