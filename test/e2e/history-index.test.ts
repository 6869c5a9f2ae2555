// `history list` through its index (SPEC §17 "Scale", §10 history row), the built binary as a user
// runs it: one corrupt file among 50 is named in one warning line and the rest listed, cold and warm;
// 20 gatechat runs at once — new conversations being written while listings rebuild the index —
// leave one whole index that lists everything. (Timing is bench/history.mjs's business, not a test's.)
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';
import { ConversationStore } from '../../src/session/conversation-store.js';

const ctx = useGatewayAndUser();

const history = (args: string[] = []) => runCli(['history', 'list', ...args], { env: ctx.user.env(), timeoutMs: 60_000 });

function seed(count: number): string[] {
  const store = new ConversationStore(ctx.user.dataDir);
  return Array.from({ length: count }, (_, i) => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    store.appendUser(cid, `seeded question ${i}`);
    return cid;
  });
}

const listed = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((line) => line.split('  ')[0]);

describe('history list through the index', () => {
  it('50 conversations, one corrupt: exit 0, one warning line naming it, the other 49 listed — cold and warm', async () => {
    const cids = seed(50);
    const corrupt = cids[17]!;
    writeFileSync(join(ctx.user.dataDir, 'conversations', `${corrupt}.jsonl`), '\u0000\u0001 not json at all\n{"type":"meta","model":');
    for (const run of ['cold', 'warm']) {
      const list = await history();
      expect(list.code, `${run}: ${list.stderr}`).toBe(0);
      const warnings = list.stderr.trim().split('\n');
      expect(warnings, run).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^gatechat: warning: conversation ${corrupt}: lines? .*not a whole record`));
      expect(listed(list.stdout).sort(), run).toEqual(cids.filter((c) => c !== corrupt).sort());
      expect(readdirSync(ctx.user.dataDir).filter((name) => name !== 'usage.jsonl').sort()).toEqual(['conversations', 'history-index.json']);
    }
    const search = await history(['question 4']);
    expect(search.code).toBe(0);
    expect(listed(search.stdout).length).toBe(11); // 4, 40…49
  });

  it('20 gatechat runs at once (10 saving new conversations, 10 listings) leave an index that lists them all', async () => {
    const seeded = seed(30);
    expect((await history()).code).toBe(0); // an index to go stale
    const prompts = Array.from({ length: 10 }, (_, i) => `concurrent question ${i}`);
    const runs = await Promise.all([
      ...prompts.map((prompt) => runCli(['--base-url', ctx.base, '-m', 'echo', prompt], { env: ctx.user.env(), timeoutMs: 60_000 })),
      ...prompts.map(() => history()),
    ]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
    }
    const after = await history(['--json']);
    expect(after.code, after.stderr).toBe(0);
    const all = JSON.parse(after.stdout) as Array<{ cid: string; title: string; turns: number }>;
    expect(all).toHaveLength(40);
    expect(all.filter((c) => c.title.startsWith('concurrent')).map((c) => c.title).sort()).toEqual(prompts.sort());
    for (const c of all) expect(c.turns).toBe(1);
    expect(all.map((c) => c.cid)).toEqual(expect.arrayContaining(seeded));
    // One whole index, no temp file or lock left beside it, and it holds every conversation.
    expect(readdirSync(ctx.user.dataDir).filter((name) => name !== 'usage.jsonl').sort()).toEqual(['conversations', 'history-index.json']);
    const rows = JSON.parse(readFileSync(join(ctx.user.dataDir, 'history-index.json'), 'utf8').split('\n')[1]!) as string[][];
    expect(rows.map((row) => row[0]).sort()).toEqual(all.map((c) => c.cid).sort());
  });
});
