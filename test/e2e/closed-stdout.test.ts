// `gatechat --help | head -1`, `gatechat history list | head`: the reader of stdout may go away before
// gatechat has written everything. Every command then ends quietly, with its own exit code, like other
// CLI tools — never a stack trace of an unhandled EPIPE. (The one-shot's and batch's own handling of a
// reader that leaves mid-answer is in backpressure.test.ts and batch.test.ts.)
import { afterAll, describe, expect, it } from 'vitest';
import { makeUserDirs, runCli } from '../helpers/cli.js';

const user = makeUserDirs();
afterAll(() => user.cleanup());

describe('stdout closed by its reader before gatechat writes', () => {
  const commands = [['--help'], ['config', 'list'], ['config', 'path'], ['history', 'list'], ['completion', 'bash'], ['help', 'batch']];
  for (const args of commands) {
    it(`gatechat ${args.join(' ')} ends quietly with exit 0`, async () => {
      // The read end is closed as soon as the process exists: its first write to stdout fails with EPIPE.
      const result = await runCli(args, { env: user.env(), timeoutMs: 20_000, onSpawn: (child) => child.stdout?.destroy() });
      expect(result.stderr).not.toMatch(/EPIPE|Unhandled|internal error|^\s{4}at /m);
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
    });
  }
});
