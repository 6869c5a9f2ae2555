// Resuming a batch (SPEC §13) from its --output file: blank lines are not damage, an output that is
// not a file is one clear line, and reading it leaves no file descriptor open.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/exit-codes.js';
import { readResumeState } from '../../src/session/batch-resume.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatechat-resume-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readResumeState', () => {
  it('blank and white-space lines are neither ids nor unreadable', async () => {
    const path = join(dir, 'out.jsonl');
    writeFileSync(path, '{"id":1,"status":"complete"}\n\n   \n{"id":"b","status":"error"}\n{torn\n');
    const state = await readResumeState(path);
    expect([...state.complete]).toEqual(['#1']);
    expect(state.unreadable).toBe(1);
    expect(state.endsMidLine).toBe(false);
  });

  it('an output that is not a regular file, or cannot be reached, is one usage line naming it', async () => {
    const inTheWay = join(dir, 'a-directory');
    mkdirSync(inTheWay);
    await expect(readResumeState(inTheWay)).rejects.toThrow(new UsageError(`--output: ${inTheWay} is not a regular file`));
    writeFileSync(join(dir, 'file'), 'x');
    const under = join(dir, 'file', 'out.jsonl');
    const refused = readResumeState(under);
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(readResumeState(under)).rejects.toThrow(new UsageError(`--output: cannot read ${under}: ENOTDIR`));
  });

  it.runIf(existsSync('/proc/self/fd'))('leaves no file descriptor open (the last-byte check closes its own)', async () => {
    const path = join(dir, 'out.jsonl');
    writeFileSync(path, '{"id":1,"status":"complete"}\n{"id":2,"st');
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 20; i++) expect((await readResumeState(path)).endsMidLine).toBe(true);
    // The read streams close their descriptors a moment after their end: wait for that, not for a time.
    for (let tries = 0; tries < 100 && open() > before; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(open()).toBeLessThanOrEqual(before);
  });

  it('the ids of a long output are kept flat: line numbers as bits, not one string each (SPEC §13)', async () => {
    const path = join(dir, 'out.jsonl');
    const lines = 200_000;
    const text: string[] = [];
    for (let id = 1; id <= lines; id++) text.push(`{"id":${id},"status":"complete"}`);
    text.push('{"id":"named","status":"complete"}', '{"id":2.5,"status":"complete"}', '{"id":16777216,"status":"complete"}');
    writeFileSync(path, `${text.join('\n')}\n`);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const state = await readResumeState(path);
    gc();
    const kept = process.memoryUsage().heapUsed - before;
    // A Set of 200 000 id strings kept 3.4 MB; the bits of 200 000 line numbers are 25 KB.
    expect(kept).toBeLessThan(1024 * 1024);
    expect(state.complete.size).toBe(lines + 3);
    for (const key of ['#1', '#199999', '#200000', '"named', '#2.5', '#16777216']) expect(state.complete.has(key)).toBe(true);
    for (const key of ['#0', '#200001', '"1', '#-1', '#1.5', '"#1']) expect(state.complete.has(key)).toBe(false);
  });
});
