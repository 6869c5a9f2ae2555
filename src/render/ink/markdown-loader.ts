/**
 * Loads the Markdown renderer in the background so the prompt appears before highlight.js is
 * compiled. Until it is loaded, text shows as plain (only possible for the first few ms).
 */
import { sanitizeForTerminal } from '../terminal-text.js';

type RenderFn = (text: string, width: number, color: boolean) => string;

let render: RenderFn | null = null;
let loading: Promise<void> | null = null;

export function loadMarkdown(): Promise<void> {
  loading ??= import('./markdown.js').then(
    (module) => {
      render = module.renderMarkdown;
    },
    () => {
      // A broken install still shows the answer, as plain text.
    },
  );
  return loading;
}

export function markdownReady(): boolean {
  return render !== null;
}

/** Gateway text → terminal text: its own escape codes removed first, then Markdown's styling added. */
export function renderMarkdownText(text: string, width: number, color: boolean): string {
  const safe = sanitizeForTerminal(text);
  return render ? render(safe, width, color) : safe.replace(/\s+$/, '');
}
