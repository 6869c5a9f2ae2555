import { useCallback, useRef, useState } from 'react';

/**
 * A reducer whose latest state is readable at once through a ref. Ink delivers the pieces of one
 * read (paste start, text, paste end) synchronously, before React re-renders, so key handling must
 * see the state the previous key produced, not the last rendered one.
 */
export function useSyncReducer<S, A>(reducer: (state: S, action: A) => S, init: () => S): [S, (action: A) => void, { readonly current: S }] {
  const ref = useRef<S | null>(null);
  if (ref.current === null) ref.current = init();
  const [state, setState] = useState<S>(ref.current);
  const dispatch = useCallback(
    (action: A) => {
      const next = reducer(ref.current as S, action);
      if (next === ref.current) return;
      ref.current = next;
      setState(next);
    },
    [reducer],
  );
  return [state, dispatch, ref as { readonly current: S }];
}
