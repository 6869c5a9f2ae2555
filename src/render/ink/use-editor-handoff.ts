import { useStdin } from 'ink';
import type { NoticeTone } from './chat-state.js';
import { editInEditor } from './editor.js';

export type EditorRun = (initial: string) => { text: string | null; error?: string };

/**
 * /edit: hands the terminal to $VISUAL / $EDITOR and brings the text back into the input box for
 * review (`review`): Enter sends it, Ctrl-C drops it. Leaving the editor without saving (:q!) must
 * never send anything by itself.
 */
export function useEditorHandoff(editor: EditorRun | undefined, notice: (text: string, tone: NoticeTone) => void, review: (text: string) => void): (initial: string) => void {
  const { setRawMode, isRawModeSupported } = useStdin();
  return (initial) => {
    // The editor owns the terminal meanwhile: Ink stops reading stdin and leaves raw mode.
    if (isRawModeSupported) setRawMode(false);
    let result: ReturnType<EditorRun>;
    try {
      result = (editor ?? editInEditor)(initial);
    } finally {
      if (isRawModeSupported) setRawMode(true);
    }
    if (result.error) return notice(result.error, 'error');
    if (!result.text?.trim()) return notice('/edit: empty prompt, nothing to review', 'dim');
    review(result.text);
  };
}
