import { useCallback, useEffect, useRef, useState } from 'react';
import { useApp } from 'ink';
import { ExitCode } from '../../exit-codes.js';

export interface Leaving {
  /** True for the last frame: the input box and status line are gone, the transcript stays. */
  leaving: boolean;
  /** /exit, Ctrl-D, Ctrl-C twice: `cancelTurn` stops a running answer (true if there was one). */
  request(cancelTurn: () => boolean): void;
  /** Called when an answer ends: if leaving was asked for meanwhile, leave now. */
  afterTurn(): void;
}

/**
 * Leaving the chat. A running answer is cancelled first and the chat leaves only when it has ended,
 * so the conversation records it; and leaving takes one more frame, drawn without the input box and
 * status line, before Ink unmounts.
 */
export function useLeaving(onExit: (code: number) => void): Leaving {
  const { exit } = useApp();
  const requested = useRef(false);
  const [leaving, setLeaving] = useState(false);

  const finish = useCallback(() => {
    onExit(ExitCode.ok);
    setLeaving(true);
  }, [onExit]);
  useEffect(() => {
    if (leaving) exit();
  }, [leaving, exit]);

  const request = useCallback(
    (cancelTurn: () => boolean) => {
      requested.current = true;
      if (!cancelTurn()) finish();
    },
    [finish],
  );
  const afterTurn = useCallback(() => {
    if (requested.current) finish();
  }, [finish]);

  return { leaving, request, afterTurn };
}
