import { useEffect, useRef } from 'react';
import { useStdin } from 'ink';

/**
 * Raw input pieces as Ink's parser splits them. useInput() maps Backspace (0x7f) and Delete (ESC[3~)
 * to the same key and hides bracketed-paste markers, so keys.ts decodes the raw text instead.
 */
export function useRawInput(handler: (raw: string) => void, active = true): void {
  const { internal_eventEmitter: events, setRawMode, isRawModeSupported } = useStdin();
  const latest = useRef(handler);
  latest.current = handler;

  useEffect(() => {
    if (!active || !isRawModeSupported) return;
    setRawMode(true);
    return () => setRawMode(false);
  }, [active, isRawModeSupported, setRawMode]);

  useEffect(() => {
    if (!active) return;
    const onInput = (data: string | Buffer) => latest.current(String(data));
    events.on('input', onInput);
    return () => {
      events.off('input', onInput);
    };
  }, [active, events]);
}
