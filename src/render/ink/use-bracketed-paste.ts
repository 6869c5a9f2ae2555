import { useEffect } from 'react';
import { useStdout } from 'ink';

/** Bracketed paste: the terminal wraps a paste in ESC[200~ … ESC[201~, so newlines in it do not send. */
export const BRACKETED_PASTE_ON = '\u001B[?2004h';
/** A terminal left in bracketed-paste mode garbles the shell's next paste. */
export const BRACKETED_PASTE_OFF = '\u001B[?2004l';

/** Bracketed paste on while the component is mounted (keys.ts decodes the markers). */
export function useBracketedPaste(): void {
  const { write } = useStdout();
  useEffect(() => {
    write(BRACKETED_PASTE_ON);
    return () => {
      write(BRACKETED_PASTE_OFF);
    };
    // Once per mount: Ink's `write` is the same function for the life of the instance.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}
