import type { render } from 'ink-testing-library';

type App = ReturnType<typeof render>;

/** Keys are written one read at a time, as a terminal delivers them; each gets a tick to be handled. */
export async function type(app: App, ...chunks: string[]): Promise<void> {
  for (const chunk of chunks) {
    app.stdin.write(chunk);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Polls until `check` passes (events, never a fixed sleep); the error names what was awaited. */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const frame = (app: App): string => app.lastFrame() ?? '';
