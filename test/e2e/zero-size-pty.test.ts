// A pseudo-terminal that reports 0×0 (a `script` log, a container before its first resize): the size
// is unknown, so gatechat lays out for 80×24 — never one character per line — and never clears the
// screen or the scrollback.
import { describe, expect, it } from 'vitest';
import { runInPty, visible } from '../helpers/pty.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const ESC = '\u001B';
/** The text a terminal would show, escape sequences and carriage returns taken out. */
// eslint-disable-next-line no-control-regex
const shown = (raw: string) => raw.replace(/\u001B\[[0-?]*[ -/]*[@-~]|\u001B[\]P][^\u0007\u001B]*(?:\u0007|\u001B\\)|\u001B[=>78]|\r/g, '');

describe('a 0×0 terminal', () => {
  for (const [name, args] of [
    ['one-shot', ['-m', 'lorem-30']],
    ['compare', ['-m', 'lorem-30', '-m', 'echo']],
  ] as const) {
    it(`${name}: words stay on their lines, nothing is cleared`, async () => {
      const { code, raw } = await runInPty(['--base-url', ctx.base, ...args, '--no-save', 'a prompt'], { env: ctx.user.env(), columns: 0, rows: 0 });
      expect(code, visible(raw)).toBe(0);
      expect(shown(raw), visible(raw)).toContain('Lorem ipsum dolor sit amet, consectetur adipiscing elit');
      expect(raw, visible(raw)).not.toContain(`${ESC}[2J`);
      expect(raw, visible(raw)).not.toContain(`${ESC}[3J`);
    });
  }
});
