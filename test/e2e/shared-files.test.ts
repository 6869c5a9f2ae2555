// Several gatechat processes on the same files at once (SPEC §6, §13, §3): real processes of the built
// binary against the dev gateway, started together. Nothing a run wrote may be lost or attached to
// another run's prompt.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';
import { ConversationStore } from '../../src/session/conversation-store.js';

const ctx = useGatewayAndUser();

function gatechat(args: string[], options: Parameters<typeof runCli>[1] = {}) {
  return runCli(['--base-url', ctx.base, ...args], { env: ctx.user.env(), timeoutMs: 60_000, ...options });
}

/** The messages of the last completion request the gateway received. */
function lastMessages(): Array<{ role: string; content: string }> {
  const last = ctx.gateway.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!;
  return (last.body as { messages: Array<{ role: string; content: string }> }).messages;
}

describe('20 `gatechat -c` at once on one conversation', () => {
  it('keeps every prompt once with its own answer, in an order the next -c sends whole', async () => {
    const first = await gatechat(['-m', 'echo', 'opening question']);
    expect(first.code, first.stderr).toBe(0);

    const prompts = Array.from({ length: 20 }, (_, i) => `parallel question ${String(i).padStart(2, '0')}`);
    const runs = await Promise.all(prompts.map((prompt) => gatechat(['-m', 'echo', '-c', prompt])));
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/internal error/);
    }

    // The file read back: each prompt once, each answered by its own echo.
    const store = new ConversationStore(ctx.user.dataDir);
    const cid = store.latest()!;
    const { turns } = store.load(cid);
    expect(turns.map((t) => t.user).sort()).toEqual(['opening question', ...prompts].sort());
    for (const turn of turns) expect(turn.assistant?.content, turn.user).toBe(turn.user);

    // The next -c sends all 21 turns and the new prompt: 43 messages, user and answer alternating.
    const next = await gatechat(['-m', 'echo', '-c', 'and now?']);
    expect(next.code, next.stderr).toBe(0);
    const messages = lastMessages();
    expect(messages).toHaveLength(43);
    for (let i = 0; i < 42; i += 2) {
      expect(messages[i]!.role).toBe('user');
      expect(messages[i + 1]).toEqual({ role: 'assistant', content: messages[i]!.content });
    }
    expect(messages.slice(0, 42).filter((m) => m.role === 'user').map((m) => m.content).sort()).toEqual(['opening question', ...prompts].sort());
    expect(messages[42]).toEqual({ role: 'user', content: 'and now?' });
  }, 120_000);
});

describe('8 `config set` at once', () => {
  it('loses none of the writes, top level and profiles alike', async () => {
    const sets = [
      ['model', 'echo'],
      ['temperature', '0.5'],
      ['max-tokens', '100'],
      ['timeout', '30'],
      ['--profile', 'work', 'model', 'work-model'],
      ['--profile', 'work', 'temperature', '0.1'],
      ['--profile', 'home', 'model', 'home-model'],
      ['--profile', 'lab', 'retries', '1'],
    ];
    const runs = await Promise.all(sets.map((args) => runCli(['config', 'set', ...args], { env: ctx.user.env(), timeoutMs: 60_000 })));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(ctx.user.configDir, 'config.json'), 'utf8'));
    expect(file).toMatchObject({
      model: 'echo',
      temperature: 0.5,
      'max-tokens': 100,
      timeout: 30,
      profiles: { work: { model: 'work-model', temperature: 0.1 }, home: { model: 'home-model' }, lab: { retries: 1 } },
    });
    expect(existsSync(join(ctx.user.configDir, 'config.json.lock'))).toBe(false);
  }, 120_000);
});

describe('two `batch` runs on one --output', () => {
  it('the second refuses with one line naming the output as in use; every prompt is sent once', async () => {
    const input = join(ctx.user.home, 'in.jsonl');
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ id: i, prompt: `line ${i}` }));
    writeFileSync(input, `${lines.join('\n')}\n`);
    const output = join(ctx.user.home, 'out.jsonl');
    const lock = `${output}.lock`;
    // The first reads its lines from stdin, kept open until the second has run: it holds the output meanwhile.
    let feed: import('node:stream').Writable | undefined;
    const firstRun = runCli(['batch', '-', '--output', output, '-m', 'echo', '--base-url', ctx.base], {
      env: ctx.user.env(),
      timeoutMs: 60_000,
      stdin: 'open',
      onSpawn: (child) => {
        feed = child.stdin!;
        feed.write(`${lines.slice(0, 3).join('\n')}\n`);
      },
    });
    for (let i = 0; i < 2000 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 25));
    expect(existsSync(lock)).toBe(true);
    const second = await runCli(['batch', input, '--output', output, '-m', 'echo', '--base-url', ctx.base], { env: ctx.user.env(), timeoutMs: 60_000 });
    feed!.end(`${lines.slice(3).join('\n')}\n`);
    const first = await firstRun;
    expect(first.code, first.stderr).toBe(0);
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(output);
    expect(second.stderr).toMatch(/in use/);
    const sent = ctx.gateway.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(sent).toHaveLength(6);
    expect(existsSync(lock)).toBe(false);
  }, 120_000);

  it('a run killed with SIGKILL leaves a stale lock that the next run takes over', async () => {
    const input = join(ctx.user.home, 'in.jsonl');
    writeFileSync(input, Array.from({ length: 4 }, (_, i) => JSON.stringify({ id: i, prompt: `line ${i}` })).join('\n') + '\n');
    const output = join(ctx.user.home, 'out.jsonl');
    const args = ['batch', input, '--output', output, '-m', 'slow-200', '--max-tokens', '50', '--concurrency', '1', '--base-url', ctx.base];
    const lock = `${output}.lock`;
    const killed = await runCli(args, {
      env: ctx.user.env(),
      timeoutMs: 60_000,
      onSpawn: (child) => {
        const timer = setInterval(() => {
          if (existsSync(lock)) {
            clearInterval(timer);
            child.kill('SIGKILL');
          }
        }, 10);
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(true);
    const rerun = await runCli(['batch', input, '--output', output, '-m', 'echo', '--base-url', ctx.base], { env: ctx.user.env(), timeoutMs: 60_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    const lines = readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: number; status: string });
    expect(lines.filter((l) => l.status === 'complete').map((l) => l.id).sort()).toEqual([0, 1, 2, 3]);
    expect(existsSync(lock)).toBe(false);
  }, 120_000);
});
