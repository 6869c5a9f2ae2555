import { useEffect, useState } from 'react';
import { useStdout } from 'ink';
import type { ChatTerminal, TerminalSize } from './ink-terminal.js';

export type { TerminalSize };

/**
 * Columns and rows, updated on resize (Markdown is re-wrapped to the new width). With the chat's
 * terminal (ink-terminal.ts) the new size arrives before Ink redraws, so its first frame at the new
 * size is already laid out for it.
 */
export function useTerminalSize(terminal?: ChatTerminal): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => terminal?.size() ?? { columns: stdout.columns || 80, rows: stdout.rows || 24 };
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (terminal) return terminal.onResize(setSize);
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout, terminal]);
  return size;
}
