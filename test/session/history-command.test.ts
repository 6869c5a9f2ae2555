import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runHistoryCommand, type HistoryAction } from '../../src/cli/commands/history.js';
import { ConversationStore, type AssistantInput } from '../../src/session/conversation-store.js';
import { UsageError } from '../../src/exit-codes.js';

let root: string;
let store: ConversationStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-history-'));
  store = new ConversationStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const reply = (content: string, status: AssistantInput['status'], extra: Partial<AssistantInput> = {}): AssistantInput => ({
  content,
  reasoning: null,
  tool_calls: [],
  status,
  finish_reason: status === 'complete' ? 'stop' : null,
  raw_finish_reason: null,
  usage: { input_tokens: 1, output_tokens: 2 },
  model: 'echo',
  api: 'chat',
  params: { stream: true },
  timings: { first_token_ms: 1, total_ms: 2 },
  ...extra,
});

async function run(action: HistoryAction, id?: string, json = false) {
  let out = '';
  let err = '';
  const io = {
    stdout: { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream,
    stderr: { write: (s: string) => ((err += s), true) } as unknown as NodeJS.WritableStream,
  };
  const code = await runHistoryCommand(action, id, { json }, io, store);
  return { code, out, err };
}

describe('gatechat history', () => {
  it('list says when there is nothing yet; --json is an empty array', async () => {
    expect(await run('list')).toEqual({ code: 0, out: '', err: 'gatechat: no saved conversations yet\n' });
    expect(JSON.parse((await run('list', undefined, true)).out)).toEqual([]);
  });

  it('list shows id, time, turns, model and title, newest first', async () => {
    const old = store.create({ model: 'echo', api: 'chat' });
    store.appendUser(old, 'old question');
    store.appendAssistant(old, { ...reply('a', 'complete'), ts: '2020-01-01T00:00:00.000Z' });
    const recent = store.create({ model: 'lorem-5', api: 'messages' });
    store.appendUser(recent, 'newer question\nwith details');
    const { out } = await run('list');
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${recent}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d    1 turn   lorem-5  newer question$`));
    expect(lines[1].startsWith(old)).toBe(true);
    const json = JSON.parse((await run('list', undefined, true)).out);
    expect(json.map((c: { cid: string }) => c.cid)).toEqual([recent, old]);
    expect(json[0]).toMatchObject({ model: 'lorem-5', api: 'messages', turns: 1, title: 'newer question' });
  });

  it('show prints a readable transcript with status markers; --json the records', async () => {
    const cid = store.create({ model: 'echo', api: 'chat', system: 'be terse' });
    store.appendUser(cid, 'one\ntwo');
    store.appendAssistant(cid, reply('full answer\n', 'complete'));
    store.appendUser(cid, 'stop me');
    store.appendAssistant(cid, reply('half', 'cancelled'));
    store.appendUser(cid, 'fails');
    store.appendAssistant(cid, reply('', 'error', { error: { message: 'gateway error (500): boom', exit_code: 6 } }));
    store.appendUser(cid, 'tools');
    store.appendAssistant(cid, reply('', 'complete', { tool_calls: [{ id: 'c1', name: 'get_time', arguments: { tz: 'UTC' } }] }));
    store.appendUser(cid, 'crashed');

    const { code, out } = await run('show', cid);
    expect(code).toBe(0);
    expect(out).toContain(`# ${cid} · echo · chat · `);
    expect(out).toContain(
      [
        'system: be terse',
        '',
        '> one',
        '> two',
        '',
        'full answer',
        '',
        '> stop me',
        '',
        'half',
        '[cancelled]',
        '',
        '> fails',
        '',
        '[error: gateway error (500): boom]',
        '',
        '> tools',
        '',
        '[tool call get_time {"tz":"UTC"}]',
        '',
        '> crashed',
        '',
        '[no answer recorded]',
        '',
      ].join('\n'),
    );

    const records = JSON.parse((await run('show', cid, true)).out);
    expect(records.map((r: { type: string }) => r.type)).toEqual(['meta', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(records[4]).toMatchObject({ content: 'half', status: 'cancelled' });
  });

  it('rm removes; unknown, missing or malicious ids are usage errors', async () => {
    const cid = store.create({ model: 'echo', api: 'chat' });
    expect(await run('rm', cid)).toEqual({ code: 0, out: '', err: `gatechat: removed conversation ${cid}\n` });
    await expect(run('show', cid)).rejects.toThrow(`no conversation with id ${cid}: see gatechat history list`);
    await expect(run('rm', cid)).rejects.toThrow(UsageError);
    await expect(run('show')).rejects.toThrow('history show: there is no saved conversation yet');
    await expect(run('rm')).rejects.toThrow(/which conversation/);
    await expect(run('rm', '../../etc/passwd')).rejects.toThrow(/not a conversation id/);
  });
});
