// batch's progress line on a terminal (tmux): drawn on stderr and redrawn in place at most four
// times a second, cleared for the one-line summary; stdout (a file here) gets only the results.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('batch progress in a terminal', () => {
  const ctx = useGatewayAndTerminals();

  it('done/total, rate and ETA redrawn in place, then the summary; results only on stdout', async () => {
    const home = ctx.user.home;
    const input = join(home, 'in.jsonl');
    const output = join(home, 'out.jsonl');
    const raw = join(home, 'terminal.raw');
    writeFileSync(input, Array.from({ length: 24 }, (_, i) => JSON.stringify({ prompt: `p${i}`, model: 'slow-40', max_tokens: 3 })).join('\n') + '\n');
    const started = Date.now();
    const session = ctx.launch(['batch', input, '--base-url', ctx.gateway.url, '--concurrency', '2'], { height: 20, stdoutTo: output });
    const bytes = session.record(raw);
    const during = await session.waitFor((s) => /batch: \d+\/24 · [\d.]+\/s · (?:[^·\n]+ · )?ETA \d+ s/.test(s), 'the progress line');
    expect(during).toMatch(/batch: \d+\/24/);
    expect(await session.waitForExit(30_000)).toBe(0);
    const elapsedMs = Date.now() - started;

    const screen = session.screen();
    expect(screen).toMatch(/gatechat: batch: 24 complete in [\d.]+ s/);
    // Cleared, not left above the summary: the progress line is gone from the screen.
    expect(screen).not.toMatch(/batch: \d+\/24/);
    const redraws = bytes().split('\r\x1b[K').length - 1;
    expect(redraws).toBeGreaterThanOrEqual(2);
    // At most four a second (one per 250 ms tick, plus the first draw and the clear).
    expect(redraws).toBeLessThanOrEqual(Math.ceil(elapsedMs / 250) + 2);
    const results = readFileSync(output, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(results).toHaveLength(24);
  });
});
