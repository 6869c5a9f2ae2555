// marked-terminal ships no types; only the parts this UI uses are declared.
declare module 'marked-terminal' {
  type Style = (text: string) => string;
  export interface TerminalRendererOptions {
    width?: number;
    reflowText?: boolean;
    tab?: number | string;
    emoji?: boolean;
    showSectionPrefix?: boolean;
    unescape?: boolean;
    tableOptions?: Record<string, unknown>;
    [style: string]: unknown;
  }
  interface TerminalRenderer {
    tableSettings: Record<string, unknown>;
    options: unknown;
    parser: unknown;
    [method: string]: unknown;
  }
  const Renderer: new (options?: TerminalRendererOptions, highlightOptions?: Record<string, unknown>) => TerminalRenderer;
  export default Renderer;
  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: Record<string, unknown>): unknown;
  export type { Style };
}
