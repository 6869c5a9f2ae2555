/**
 * Loads the Markdown renderer in the background so the prompt appears before highlight.js is
 * compiled. Until it is loaded, text shows as plain (only possible for the first few ms).
 */
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

export function renderMarkdownText(text: string, width: number, color: boolean): string {
  return render ? render(text, width, color) : text.replace(/\s+$/, '');
}
