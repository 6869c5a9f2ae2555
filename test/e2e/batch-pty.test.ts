// batch's progress line on a terminal (tmux): drawn on stderr and redrawn in place at most four
// times a second, cleared for the one-line summary; stdout (a file here) gets only the results.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/server.js';
import { binPath, shellQuoteArgs } from '../helpers/cli.js';
import { describeInTerminal, shellQuote, TmuxSession } from '../helpers/tmux.js';

let gateway: Awaited<ReturnType<typeof startGateway>>;
const sessions: TmuxSession[] = [];

describeInTerminal('batch progress in a terminal', () => {
  beforeAll(async () => {
    gateway = await startGateway({ port: 0 });
  });
  afterEach(() => {
    for (const s of sessions.splice(0)) s.kill();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('done/total, rate and ETA redrawn in place, then the summary; results only on stdout', async () => {
    const home = mkdtempSync(join(tmpdir(), 'gc-batch-pty-'));
    const input = join(home, 'in.jsonl');
    const output = join(home, 'out.jsonl');
    const raw = join(home, 'terminal.raw');
    writeFileSync(input, Array.from({ length: 24 }, (_, i) => JSON.stringify({ prompt: `p${i}`, model: 'slow-40', max_tokens: 3 })).join('\n') + '\n');
    const command = `${shellQuoteArgs([process.execPath, binPath, 'batch', input, '--base-url', gateway.url, '--concurrency', '2'])} > ${shellQuote(output)}`;
    const started = Date.now();
    const session = TmuxSession.start(command, {
      width: 100,
      height: 20,
      env: { HOME: home, GATECHAT_CONFIG_DIR: join(home, 'config'), GATECHAT_DATA_DIR: join(home, 'data'), TERM: 'xterm-256color', NO_COLOR: undefined },
    });
    sessions.push(session);
    session.record(raw);
    const during = await session.waitFor((s) => /batch: \d+\/24 · [\d.]+\/s · ETA \d+ s/.test(s), 'the progress line');
    expect(during).toMatch(/batch: \d+\/24/);
    expect(await session.waitForExit(30_000)).toBe(0);
    const elapsedMs = Date.now() - started;

    const screen = session.screen();
    expect(screen).toMatch(/gatechat: batch: 24 complete in [\d.]+ s/);
    // Cleared, not left above the summary: the progress line is gone from the screen.
    expect(screen).not.toMatch(/batch: \d+\/24/);
    const bytes = readFileSync(raw, 'utf8');
    const redraws = bytes.split('\r\x1b[K').length - 1;
    expect(redraws).toBeGreaterThanOrEqual(2);
    // At most four a second (one per 250 ms tick, plus the first draw and the clear).
    expect(redraws).toBeLessThanOrEqual(Math.ceil(elapsedMs / 250) + 2);
    const results = readFileSync(output, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(results).toHaveLength(24);
  });
});
