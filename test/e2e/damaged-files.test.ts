// Damaged conversation files never stop the others (SPEC §6): `history list`, `history list TEXT` and
// `-c` / `--cid` through the built binary, with a wrong-typed field, a directory or a dangling link in
// a file's place, a header naming another conversation, torn and invalid lines. Each is named in one
// warning line; the rest is listed and keeps working; nothing reads as an internal error.
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';
import { ConversationStore } from '../../src/session/conversation-store.js';
import { savedAnswer } from '../helpers/conversation.js';

const ctx = useGatewayAndUser();

function gatechat(args: string[]) {
  return runCli(args[0] === 'history' ? args : ['--base-url', ctx.base, ...args], { env: ctx.user.env() });
}

const answer = (content: string) => savedAnswer(content);

const conversationsDir = () => join(ctx.user.dataDir, 'conversations');
const fileOf = (cid: string) => join(conversationsDir(), `${cid}.jsonl`);

/** A saved conversation of one answered turn, written by the store as gatechat writes it. */
function saved(store: ConversationStore, prompt: string): string {
  const cid = store.create({ model: 'echo', api: 'chat' });
  store.appendAssistant(cid, { ...answer(prompt), turn: store.appendUser(cid, prompt) });
  return cid;
}

/** Replaces the header line (line 1) with `patch` applied. */
function patchHeader(cid: string, patch: Record<string, unknown>): void {
  const [header, ...rest] = readFileSync(fileOf(cid), 'utf8').split('\n');
  writeFileSync(fileOf(cid), [JSON.stringify({ ...JSON.parse(header!), ...patch }), ...rest].join('\n'));
}

function damagedSet() {
  const store = new ConversationStore(ctx.user.dataDir);
  const healthy = saved(store, 'a healthy conversation about kites');
  const wrongType = saved(store, 'model field of the wrong type, about kites');
  patchHeader(wrongType, { model: 123 });
  const otherId = saved(store, 'a header naming another conversation, about kites');
  patchHeader(otherId, { cid: healthy });
  const torn = saved(store, 'torn and invalid lines, about kites');
  appendFileSync(fileOf(torn), '{"type":"user","content":"half a rec\n[1,2,3]\n{"type":"user","turn":"x","ts":"","content":42}\n');
  const dir = '20200101-000000-d1d1';
  mkdirSync(fileOf(dir));
  const link = '20200101-000000-11aa';
  symlinkSync(join(ctx.user.home, 'nowhere.jsonl'), fileOf(link));
  return { healthy, wrongType, otherId, torn, dir, link };
}

function warnings(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.includes('warning'));
}

describe('history list with damaged conversation files', () => {
  it('lists every readable conversation and names each damaged one in one warning line', async () => {
    const ids = damagedSet();
    for (const args of [['history', 'list'], ['history', 'list', 'kites'], ['history', 'list', '--json']]) {
      const run = await gatechat(args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stderr).not.toMatch(/internal error/);
      for (const cid of [ids.healthy, ids.wrongType, ids.otherId, ids.torn]) expect(run.stdout, args.join(' ')).toContain(cid);
      expect(run.stdout).not.toContain(ids.dir);
      expect(run.stdout).not.toContain(ids.link);
      const lines = warnings(run.stderr);
      // One line each: the directory, the link, the wrong-typed field, the foreign header, the bad lines.
      expect(lines, run.stderr).toHaveLength(5);
      expect(lines.find((l) => l.includes(ids.dir))).toMatch(/directory/);
      expect(lines.find((l) => l.includes(ids.link))).toMatch(/symbolic link/);
      expect(lines.find((l) => l.includes(ids.wrongType))).toMatch(/"model" is not a string/);
      expect(lines.find((l) => l.includes(ids.otherId))).toMatch(new RegExp(`header names ${ids.healthy}`));
      expect(lines.find((l) => l.includes(ids.torn))).toMatch(/lines? .*not a whole record/);
    }
  });

  it('history show and --cid use what is readable of a damaged file, with its warning', async () => {
    const ids = damagedSet();
    const show = await gatechat(['history', 'show', ids.wrongType]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('model field of the wrong type');
    expect(warnings(show.stderr)).toHaveLength(1);

    const next = await gatechat(['-m', 'echo', '--cid', ids.torn, 'one more']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe('one more\n');
    expect(warnings(next.stderr)).toHaveLength(1);
    expect(next.stderr).toContain(ids.torn);
    const messages = (ctx.gateway.requests.at(-1)!.body as { messages: unknown[] }).messages;
    expect(messages).toEqual([
      { role: 'user', content: 'torn and invalid lines, about kites' },
      { role: 'assistant', content: 'torn and invalid lines, about kites' },
      { role: 'user', content: 'one more' },
    ]);
  });

  it('a header naming another conversation never sends later turns into that one', async () => {
    const ids = damagedSet();
    const before = readFileSync(fileOf(ids.healthy), 'utf8');
    const run = await gatechat(['-m', 'echo', '--cid', ids.otherId, 'where does this go?']);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(fileOf(ids.healthy), 'utf8')).toBe(before);
    expect(readFileSync(fileOf(ids.otherId), 'utf8')).toContain('where does this go?');
  });

  it('a directory or a link in a file\'s place: show and rm say so in one line, exit 2', async () => {
    const ids = damagedSet();
    for (const cid of [ids.dir, ids.link]) {
      const show = await gatechat(['history', 'show', cid]);
      expect(show.code, show.stderr).toBe(2);
      expect(show.stderr.trim().split('\n')).toHaveLength(1);
      expect(show.stderr).toContain(cid);
      expect(show.stderr).not.toMatch(/internal error/);
    }
    const rmDir = await gatechat(['history', 'rm', ids.dir]);
    expect(rmDir.code).toBe(2);
    expect(rmDir.stderr).toMatch(/is a directory \(EISDIR\)/);
    // A link is removed itself, never what it points to.
    const rmLink = await gatechat(['history', 'rm', ids.link]);
    expect(rmLink.code, rmLink.stderr).toBe(0);
    const list = await gatechat(['history', 'list']);
    expect(list.stderr).not.toContain(ids.link);
  });
});
