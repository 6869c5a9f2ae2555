// batch --remote's progress on a terminal (tmux): a bar with the vendor's status, the requests done
// out of all and the time since submitting, redrawn in place while the batch runs on the gateway;
// Ctrl-C clears it and says the batch keeps running.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('batch --remote progress in a terminal', () => {
  const ctx = useGatewayAndTerminals();

  it('status, counts and elapsed time redrawn in place; Ctrl-C clears it and leaves the batch running', async () => {
    const home = ctx.user.home;
    const input = join(home, 'in.jsonl');
    // batch-hold keeps the batch in_progress with its last line unfinished.
    writeFileSync(input, ['"one"', '"two"', JSON.stringify({ prompt: 'three', model: 'batch-hold' })].join('\n') + '\n');
    const session = ctx.launch(['batch', input, '--remote', '--output', join(home, 'out.jsonl'), '-m', 'echo', '--base-url', ctx.gateway.url], { height: 20 });
    const line = /\[#{13}·{7}\] batch: in_progress · 2\/3 · (\d+) s/;
    const first = Number(line.exec(await session.waitFor((s) => line.test(s), 'the progress line'))![1]);
    // Redrawn in place while nothing changes but the time.
    await session.waitFor((s) => Number(line.exec(s)?.[1] ?? first) > first, 'the elapsed time moving');
    session.keys('C-c');
    expect(await session.waitForExit(10_000)).toBe(130);
    const screen = session.screen();
    expect(screen).toMatch(/gatechat: batch: submitted batch_\w+: 3 requests \(lines 1-3\)/);
    expect(screen).toMatch(/stopped waiting; the batches keep running on the gateway/);
    expect(screen).not.toMatch(/batch: in_progress/);
  });
});
