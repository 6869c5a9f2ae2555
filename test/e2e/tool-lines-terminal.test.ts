// A tool's outcome lines on a terminal's stderr (SPEC §15, §20): each is a whole line, drawn without its
// control characters. A tool (or an MCP server's error) whose text ends in an unfinished escape
// sequence (`ESC ]`, an OSC that never ends) must not hold back the lines after it: stderr is also the
// stream a reasoning or answer stream is sanitised on piece by piece, where an open sequence is kept
// until it ends.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runInPty, visible } from '../helpers/pty.js';

const ctx = useGatewayAndUser();

describe('tool lines on a terminal', () => {
  it('a tool whose output (shown with -v) ends in ESC ] hides none of the lines after it', async () => {
    const tools = join(ctx.user.home, 'osc-tools.json');
    writeFileSync(
      tools,
      JSON.stringify([{ type: 'function', function: { name: 'shout', description: 'shouts', parameters: { type: 'object', properties: {} } }, 'x-command': "printf 'boom\\033]'" }]),
    );
    // stdout to a file, stderr the terminal: the plain renderer, its lines on a guarded stderr.
    const result = await runInPty(['--base-url', ctx.base, '--no-save', '-m', 'agent-3', '--tools', tools, '--allow', 'shout', '-v', 'call shout {}'], {
      env: ctx.user.env(),
      stdoutTo: join(ctx.user.home, 'osc-answer.txt'),
    });
    const calls = result.raw.match(/⚙ shout/g) ?? [];
    expect(calls.length, visible(result.raw)).toBe(3);
    // Each call's outcome line, and (-v) its output as a line of its own, the sequence taken out.
    expect((result.raw.match(/✓ \d/g) ?? []).length, visible(result.raw)).toBe(3);
    expect((result.raw.match(/^boom\r?$/gm) ?? []).length, visible(result.raw)).toBe(3);
    expect(result.raw).not.toContain('\u001b]');
  });
});
