// Approval of a tool call in a one-shot on a terminal (SPEC §15): stdin and stderr are a real terminal
// (tmux), stdout goes to a file; the call waits for y / a / n / Esc and nothing runs before the key.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('tool approval in a one-shot on a terminal', () => {
  const ctx = useGatewayAndTerminals();

  function setup(key: string) {
    const marker = join(ctx.user.home, `ran-${key}`);
    const tools = join(ctx.user.home, `tools-${key}.json`);
    const out = join(ctx.user.home, `out-${key}.txt`);
    writeFileSync(
      tools,
      JSON.stringify([{ type: 'function', function: { name: 'shout', parameters: { type: 'object' } }, 'x-command': `touch ${marker}; printf 'ran it'` }]),
    );
    const s = ctx.launch(['--base-url', ctx.base, '--no-save', '-m', 'agent', '--tools', tools, 'call shout {"text":"hi"}'], { stdoutTo: out });
    return { marker, out, s };
  }

  for (const key of ['y', 'a'] as const) {
    it(`${key}: the call runs after the key, and its result goes back`, async () => {
      const { marker, out, s } = setup(key);
      await s.waitForText('y run once', 15_000);
      expect(s.screen()).toContain('shout (command) wants to run with');
      expect(s.screen()).toContain('"text": "hi"');
      // Nothing ran while the prompt waited.
      expect(existsSync(marker)).toBe(false);
      s.type(key);
      expect(await s.waitForExit(15_000)).toBe(0);
      expect(existsSync(marker)).toBe(true);
      expect(readFileSync(out, 'utf8')).toBe('results: ran it\n');
    });
  }

  it('n: denied, nothing runs, the model is told the user declined', async () => {
    const { marker, out, s } = setup('n');
    await s.waitForText('y run once', 15_000);
    s.type('n');
    expect(await s.waitForExit(15_000)).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(out, 'utf8')).toBe('results: The user declined to run this tool call.\n');
  });

  it('Esc: the turn is cancelled, nothing runs, exit 130', async () => {
    const { marker, s } = setup('esc');
    await s.waitForText('y run once', 15_000);
    s.keys('Escape');
    expect(await s.waitForExit(15_000)).toBe(130);
    expect(existsSync(marker)).toBe(false);
  });

  describe('in the live view (stdout a terminal too)', () => {
    function live(key: string) {
      const marker = join(ctx.user.home, `ran-live-${key}`);
      const tools = join(ctx.user.home, `tools-live-${key}.json`);
      writeFileSync(tools, JSON.stringify([{ type: 'function', function: { name: 'shout', parameters: { type: 'object' } }, 'x-command': `touch ${marker}; printf 'ran it'` }]));
      const s = ctx.launch(['--base-url', ctx.base, '--no-save', '-m', 'agent', '--tools', tools, 'call shout {"text":"hi"}']);
      return { marker, s };
    }

    it('y: the prompt waits below the answer, the call runs after the key, its result reaches the answer', async () => {
      const { marker, s } = live('y');
      await s.waitForText('y run once', 15_000);
      expect(s.screen()).toMatch(/shout \(command\) \{"text":"hi"\}/);
      expect(existsSync(marker)).toBe(false);
      s.type('y');
      expect(await s.waitForExit(15_000)).toBe(0);
      expect(existsSync(marker)).toBe(true);
      expect(s.screen()).toContain('results: ran it');
      // The loop's lines went through the view: the call and its outcome, the prompt gone.
      expect(s.screen()).toMatch(/⚙ shout/);
      expect(s.screen()).toMatch(/✓ \d+\.\d s/);
      expect(s.screen()).not.toContain('y run once');
    });

    it('n: denied, nothing runs, the model is told', async () => {
      const { marker, s } = live('n');
      await s.waitForText('y run once', 15_000);
      s.type('n');
      expect(await s.waitForExit(15_000)).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(s.screen()).toContain('results: The user declined to run this tool call.');
    });

    it('Esc: the turn is cancelled, nothing runs, exit 130', async () => {
      const { marker, s } = live('esc');
      await s.waitForText('y run once', 15_000);
      s.keys('Escape');
      expect(await s.waitForExit(15_000)).toBe(130);
      expect(existsSync(marker)).toBe(false);
    });
  });
});
