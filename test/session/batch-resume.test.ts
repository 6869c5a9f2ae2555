// Resuming a batch (SPEC §13) from its --output file: blank lines are not damage, an output that is
// not a file is one clear line, and reading it leaves no file descriptor open.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
