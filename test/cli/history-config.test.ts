// `history show` by id prefix or latest, `history list TEXT`, `config list --profile`: through the
// built binary, conversations recorded over the dev gateway.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

const ctx = useGatewayAndUser();
const cli = (args: string[], stdin?: string) => runCli(args, { env: ctx.user.env(), stdin });

/** Records one conversation and returns its id. */
async function record(prompt: string): Promise<string> {
  const result = await cli(['--base-url', ctx.base, '-m', 'echo', '--json', prompt]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).cid as string;
}

describe('history show', () => {
  it('takes a unique start of an id, and shows the same as the full id', async () => {
    const rome = await record('history of rome');
    const bread = await record('a recipe for bread');
    const full = await cli(['history', 'show', rome]);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toMatch(new RegExp(`^# ${rome} · echo · chat · .*\n\n> history of rome\n\nhistory of rome\n$`));
    // The shortest prefix that only one of the two ids starts with.
    let length = 1;
    while (bread.startsWith(rome.slice(0, length))) length++;
    const byPrefix = await cli(['history', 'show', rome.slice(0, length)]);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toBe(full.stdout);
  });

  it('with no id shows the latest conversation', async () => {
    await record('first one');
    const latest = await record('second one');
    const result = await cli(['history', 'show']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe((await cli(['history', 'show', latest])).stdout);
    expect(result.stdout).toContain('> second one');
    const json = await cli(['history', 'show', '--json']);
    expect(JSON.parse(json.stdout)[0].cid).toBe(latest);
  });

  it('an ambiguous prefix is exit 2, one line naming every candidate', async () => {
    const a = await record('one');
    const b = await record('two');
    let common = 0;
    while (a[common] === b[common]) common++;
    const prefix = a.slice(0, common);
    const result = await cli(['history', 'show', prefix]);
    expect(result.code).toBe(2);
    const [newer, older] = [a, b].sort().reverse();
    expect(result.stderr).toBe(`gatechat: ${prefix} matches 2 conversations: ${newer}, ${older}; give more of the id\n`);
    expect(result.stdout).toBe('');
  });

  it('no conversations yet, or no match: exit 2, one line', async () => {
    const none = await cli(['history', 'show']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('gatechat: history show: there is no saved conversation yet\n');
    await record('something');
    const missing = await cli(['history', 'show', 'zzz']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('gatechat: no conversation with id zzz: see gatechat history list\n');
  });

  it('rm takes a unique prefix too, but never defaults to the latest', async () => {
    const cid = await record('to remove');
    const bare = await cli(['history', 'rm']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe('gatechat: history rm: which conversation? (an id, or --older-than 30d; see: gatechat history list)\n');
    const removed = await cli(['history', 'rm', cid.slice(0, -3)]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toBe(`gatechat: removed conversation ${cid}\n`);
    expect((await cli(['history', 'list', '--json'])).stdout).toBe('[]\n');
  });
});

describe('history list TEXT', () => {
  it('lists only conversations that mention the text (any case, prompts and answers)', async () => {
    const rome = await record('history of Rome');
    const bread = await record('a recipe for bread');
    const result = await cli(['history', 'list', 'rome']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(`${rome}  `)).toBe(true);
    expect(lines[0]).toMatch(/history of Rome$/);

    const words = await cli(['history', 'list', 'RECIPE', 'FOR']);
    expect(words.stdout.trimEnd().split('\n').map((line) => line.split('  ')[0])).toEqual([bread]);

    const json = await cli(['history', 'list', '--json', 'bread']);
    expect(JSON.parse(json.stdout).map((c: { cid: string }) => c.cid)).toEqual([bread]);

    const everything = await cli(['history', 'list']);
    expect(everything.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('no match: nothing on stdout, a note on stderr, exit 0', async () => {
    await record('hello');
    const result = await cli(['history', 'list', 'carthage']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('gatechat: no saved conversation mentions "carthage"\n');
  });

  it('show and rm take one id', async () => {
    const result = await cli(['history', 'show', 'a', 'b']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: history show: expected one conversation id, got 2 words\n');
  });
});

describe('config list --profile', () => {
  it('lists that profile only: its values, inherited ones marked, its model entries', async () => {
    expect((await cli(['config', 'set', 'base-url', ctx.base])).code).toBe(0);
    expect((await cli(['config', 'set', '--profile', 'work', 'model', 'work-model'])).code).toBe(0);
    expect((await cli(['config', 'set', '--profile', 'home', 'model', 'home-model'])).code).toBe(0);
    expect((await cli(['config', 'set', '--profile', 'work', '--model', 'fast', 'temperature', '0.2'])).code).toBe(0);
    const result = await cli(['config', 'list', '--profile', 'work']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[1]).toBe('[profile work]');
    expect(lines).toContain(`base-url          ${ctx.base}  (from top level)`);
    expect(lines).toContain('model             work-model');
    expect(lines).toContain('retries           2  (default)');
    expect(result.stdout).toContain('[profile work · model fast]\ntemperature');
    expect(result.stdout).not.toContain('home');

    const json = JSON.parse((await cli(['config', 'list', '--profile', 'work', '--json'])).stdout);
    expect(json.profile).toBe('work');
    expect(json.settings.model).toEqual({ value: 'work-model', source: 'profile' });
    expect(json.settings['base-url']).toEqual({ value: ctx.base, source: 'config' });
    expect(json.models).toEqual({ fast: { temperature: 0.2 } });
  });

  it('an unknown profile is exit 2, one line', async () => {
    const result = await cli(['config', 'list', '--profile', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('gatechat: --profile: no profile named "nope" (known profiles: none)\n');
  });
});

describe('--cid takes the start of an id too', () => {
  it('continues the one conversation it names; an ambiguous start is exit 2 and nothing is sent', async () => {
    const first = await record('first topic');
    const second = await record('second topic');
    let length = 1;
    while (second.startsWith(first.slice(0, length))) length++;
    const result = await cli(['--base-url', ctx.base, '--json', '--cid', first.slice(0, length), 'more']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).cid).toBe(first);
    expect((ctx.gateway.requests.at(-1)!.body as { messages: unknown }).messages).toEqual([
      { role: 'user', content: 'first topic' },
      { role: 'assistant', content: 'first topic' },
      { role: 'user', content: 'more' },
    ]);

    let common = 0;
    while (first[common] === second[common]) common++;
    const sent = ctx.gateway.requests.length;
    const ambiguous = await cli(['--base-url', ctx.base, '--cid', first.slice(0, common), 'more']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^gatechat: \S+ matches 2 conversations: .*; give more of the id\n$/);
    expect(ctx.gateway.requests).toHaveLength(sent);
  });
});
