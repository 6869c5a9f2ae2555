// Shared by the *-pty tests of SPEC §8 "Holding up": the chat in tmux against the dev gateway, every
// byte it writes recorded, and the few questions those tests ask of a screen.
import { expect } from 'vitest';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { binPath, shellQuoteArgs } from '../helpers/cli.js';
import { visible } from '../helpers/pty.js';
import { shellQuote, useGatewayAndTerminals, type TerminalOptions, type TmuxSession } from '../helpers/tmux.js';

export const READY = 'Ask anything';
const ESC = '\u001B';

export type ChatTerminals = ReturnType<typeof useChatTerminals>;

export interface ChatLaunch {
  model?: string;
  /** Extra arguments after `chat --base-url … -m MODEL`; --no-save unless `save` is true. */
  args?: string[];
  save?: boolean;
  /** Working directory of the chat (for @path and path completion). */
  cwd?: string;
}

/** The dev gateway, a fresh user per test, and chat windows on it. */
export function useChatTerminals() {
  const ctx = useGatewayAndTerminals();
  const chatArgs = (options: ChatLaunch) => [
    'chat', '--base-url', ctx.base, '-m', options.model ?? 'echo', ...(options.save ? [] : ['--no-save']), ...(options.args ?? []),
  ];
  /** The chat in a tmux window; `raw()` reads every byte it has written to the terminal so far. */
  function chat(options: ChatLaunch & Omit<TerminalOptions, 'stdoutTo'> = {}): { s: TmuxSession; raw: () => string } {
    const { model: _m, args: _a, save: _s, cwd, ...terminal } = options;
    const command = shellQuoteArgs([process.execPath, binPath, ...chatArgs(options)]);
    const s = cwd ? ctx.open(`sh -c ${shellQuote(`cd ${shellQuote(cwd)} && exec ${command}`)}`, terminal) : ctx.open(command, terminal);
    return { s, raw: s.record(join(ctx.user.home, `raw-${Math.random().toString(36).slice(2)}.bin`)) };
  }
  /** Waits until the gateway has had `count` requests; returns the last one's last message content. */
  async function request(count: number, s: TmuxSession): Promise<unknown> {
    const deadline = Date.now() + 15_000;
    while (ctx.gateway.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} request(s), got ${ctx.gateway.requests.length}; screen:\n${s.screen()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const body = ctx.gateway.requests[count - 1]!.body as { messages: Array<{ content: unknown }> };
    return body.messages.at(-1)!.content;
  }
  return Object.assign(ctx, { chat, chatArgs, request });
}

/** The raw bytes hold nothing that erases the screen or the scrollback (SPEC §8). */
export function expectScrollbackKept(raw: string): void {
  expect(raw, visible(raw)).not.toContain(`${ESC}[3J`);
  expect(raw, visible(raw)).not.toContain(`${ESC}[2J`);
  expect(raw, visible(raw)).not.toContain(`${ESC}c`);
}

export const screenLines = (screen: string): string[] => screen.split('\n');

/** Columns a captured line takes (emoji and CJK two each). */
export const columnsOf = (line: string): number => stringWidth(line);

/** The input box's text line: what follows `│ › ` up to the right border. */
export function inputLine(screen: string): string | undefined {
  const line = screenLines(screen).find((l) => l.includes('│ › '));
  return line && /│ › (.*?)\s*│\s*$/.exec(line)?.[1];
}

/** The screen with colours and attributes (SGR sequences), wrapped lines joined. */
export function styledScreen(s: TmuxSession): string {
  return s.tmux('capture-pane', '-p', '-e', '-J');
}

/** Everything the pane has held, scrollback included. */
export function wholeHistory(s: TmuxSession): string {
  return s.tmux('capture-pane', '-p', '-J', '-S', '-');
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
