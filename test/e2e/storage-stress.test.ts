// Issue "Trust, third round": a stress run as users make one — many `-c` and `config set` at once,
// some killed with SIGKILL at random points, damaged files beside them, then a full disk — loses
// nothing a finished run saved and never prints "internal error". Real processes of the built binary
// against the dev gateway; the kill points come from a seed printed with any failure.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli, type CliOptions, type CliResult } from '../helpers/cli.js';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.js';
import { ConversationStore } from '../../src/session/conversation-store.js';

const ctx = useGatewayAndUser();
let mounted: Tmpfs | null = null;
afterEach(() => {
  mounted?.unmount();
  mounted = null;
});

/** mulberry32: kill points that can be replayed from the seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Run {
  prompt: string;
  /** What the answer is when it arrives whole. */
  expected: string;
  result: CliResult;
}

function noInternalError(results: CliResult[], seed: number): void {
  for (const r of results) expect(r.stderr, `seed ${seed}`).not.toMatch(/internal error|this is a bug/);
}

describe('stress: concurrent -c and config set, kill -9 at random points, damaged files, a full disk', () => {
  it('loses nothing a finished run saved, and prints no internal error', async () => {
    const seed = Number(process.env.GATECHAT_STRESS_SEED ?? Date.now() % 1_000_000);
    const next = random(seed);
    const fs = mountTmpfs(2048);
    const root = 'skip' in fs ? ctx.user.home : fs.dir;
    if (!('skip' in fs)) mounted = fs;
    const env = { ...ctx.user.env(), GATECHAT_DATA_DIR: join(root, 'data'), GATECHAT_CONFIG_DIR: join(root, 'config') };
    const ask = (args: string[], onSpawn?: CliOptions['onSpawn']) =>
      runCli(['--base-url', ctx.base, ...args], { env, timeoutMs: 60_000, onSpawn });
    const killAfter = (ms: number) => (child: import('node:child_process').ChildProcess) => void setTimeout(() => child.kill('SIGKILL'), ms);
    // Killed while its answer streams, once this much of it was printed: the prompt is saved, and of a
    // long answer the parts written so far.
    const killMidAnswer = (bytes: number) => (child: import('node:child_process').ChildProcess) => {
      let seen = 0;
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen >= bytes) child.kill('SIGKILL');
      });
    };

    // Damage beside the conversation: a directory and a torn file in files' places.
    const conversations = join(env.GATECHAT_DATA_DIR, 'conversations');
    mkdirSync(conversations, { recursive: true });
    mkdirSync(join(conversations, '20000101-000000-d1d1.jsonl'));
    writeFileSync(join(conversations, '20000101-000000-70f0.jsonl'), '{"type":"meta","v":1,"cid":"20000101-000000-70f0","model":7}\n{"type":"user","con');
    const opening = await ask(['-m', 'echo', 'opening']);
    expect(opening.code, opening.stderr).toBe(0);
    // Answers whose text is known: the first 12 words of the dev gateway's lorem, paced; and one long
    // enough to be saved in parts while it streams.
    const slowText = (await ask(['-m', 'slow-25', '--max-tokens', '12', '--no-save', 'x'])).stdout;
    expect(slowText.length).toBeGreaterThan(20);
    const longText = (await ask(['-m', 'lorem-60000', '--max-tokens', '60000', '--no-save', 'x'])).stdout;
    expect(longText.length).toBeGreaterThan(256 * 1024);

    // Round 1: 16 -c (paced, long and quick answers), 8 config set, a third or more killed at a random moment.
    const runs: Array<Promise<Run>> = [];
    for (let i = 0; i < 16; i++) {
      const prompt = `stress prompt ${i}`;
      const kind = i % 4 === 1 ? 'slow' : i % 8 === 3 ? 'long' : 'echo';
      const kill = next() < 0.4;
      const model = { slow: ['-m', 'slow-25', '--max-tokens', '12'], long: ['-m', 'lorem-60000', '--max-tokens', '60000'], echo: ['-m', 'echo'] }[kind];
      // Start-up under this load takes a while: kills spread over it, and into streaming answers.
      const expected = { slow: slowText, long: longText, echo: `${prompt}\n` }[kind];
      const killer = !kill ? undefined : kind !== 'echo' && next() < 0.6 ? killMidAnswer(1 + Math.floor(next() * (expected.length - 2))) : killAfter(Math.floor(next() * 2500));
      runs.push(ask([...model, '-c', prompt], killer).then((result) => ({ prompt, expected, result })));
    }
    const keys = ['model', 'temperature', 'max-tokens', 'timeout', 'retries', 'max-tokens-field', 'api', 'auth'];
    const values = ['echo', '0.5', '100', '30', '1', 'max_tokens', 'chat', 'bearer'];
    const sets = keys.map((key, i) => {
      const profile = i % 2 === 0 ? [] : ['--profile', `p${i}`];
      const kill = next() < 1 / 3;
      return runCli(['config', 'set', ...profile, key, values[i]!], { env, timeoutMs: 60_000, onSpawn: kill ? killAfter(Math.floor(next() * 1500)) : undefined }).then(
        (result) => ({ key, profile: profile[1], value: values[i]!, result }),
      );
    });
    const finished = await Promise.all(runs);
    const setResults = await Promise.all(sets);
    noInternalError([...finished.map((r) => r.result), ...setResults.map((s) => s.result)], seed);

    // Every run that ended by itself ended well; every one that was not killed did.
    for (const run of finished) {
      if (run.result.signal === 'SIGKILL') continue;
      expect(run.result.code, `seed ${seed}: ${run.prompt}: ${run.result.stderr}`).toBe(0);
      expect(run.result.stdout).toBe(run.expected);
    }
    for (const set of setResults) if (set.result.signal !== 'SIGKILL') expect(set.result.code, `seed ${seed}: ${set.result.stderr}`).toBe(0);

    // The conversation: every finished prompt once, with its own whole answer; a killed one at most once,
    // with at most the part of its answer that arrived.
    const warnings: string[] = [];
    const store = new ConversationStore(env.GATECHAT_DATA_DIR, { warn: (line) => warnings.push(line) });
    const cid = store.latest()!;
    const { turns } = store.load(cid);
    const byPrompt = new Map<string, typeof turns>();
    for (const turn of turns) byPrompt.set(turn.user, [...(byPrompt.get(turn.user) ?? []), turn]);
    for (const run of finished) {
      const saved = byPrompt.get(run.prompt) ?? [];
      expect(saved.length, `seed ${seed}: ${run.prompt}`).toBeLessThanOrEqual(1);
      const answer = saved[0]?.assistant;
      if (run.result.signal !== 'SIGKILL') {
        expect(answer?.status, `seed ${seed}: ${run.prompt}`).toBe('complete');
        expect(answer?.content.trimEnd()).toBe(run.expected.trimEnd());
      } else if (answer) {
        expect(run.expected.startsWith(answer.content), `seed ${seed}: ${run.prompt}`).toBe(true);
      }
    }
    expect([...byPrompt.keys()].every((p) => p === 'opening' || p.startsWith('stress prompt '))).toBe(true);

    // Config: valid, and every set that finished is in it; a lock left by a killed one is taken over.
    const configPath = join(env.GATECHAT_CONFIG_DIR, 'config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, any>;
    for (const set of setResults) {
      if (set.result.signal === 'SIGKILL') continue;
      const scope = set.profile ? config.profiles?.[set.profile] : config;
      expect(scope?.[set.key], `seed ${seed}: ${set.key}`).toBeDefined();
    }
    const after = await runCli(['config', 'set', '--profile', 'last', 'model', 'echo'], { env });
    expect(after.code, after.stderr).toBe(0);
    expect(existsSync(`${configPath}.lock`)).toBe(false);

    // The listing names the damage and lists the rest; the next -c sends a conversation the gateway takes.
    const list = await runCli(['history', 'list'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(cid);
    expect(list.stderr).toContain('20000101-000000-d1d1');
    const onward = await ask(['-m', 'echo', '-c', 'onward']);
    expect(onward.code, onward.stderr).toBe(0);
    const messages = (ctx.gateway.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages;
    for (let i = 0; i < messages.length - 1; i += 2) {
      expect(messages[i]!.role).toBe('user');
      expect(messages[i + 1]!.role).toBe('assistant');
    }
    for (const run of finished) {
      if (run.result.signal === 'SIGKILL') continue;
      expect(messages.some((m) => m.role === 'user' && m.content === run.prompt), `seed ${seed}: ${run.prompt}`).toBe(true);
    }

    if ('skip' in fs) return; // no full disk without a tmpfs: said by the storage-errors tests
    // Round 2: the disk fills up while 8 -c run at once. Each ends well or with one line saying so.
    fs.fill(0);
    const full = await Promise.all(Array.from({ length: 8 }, (_, i) => ask(['-m', 'echo', '-c', `on a full disk ${i}`])));
    noInternalError(full, seed);
    for (const r of full) {
      if (r.code === 0) continue;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr, r.stderr).toMatch(/the disk is full \(ENOSPC\)/);
      expect(r.stderr.trimEnd().split('\n').filter((l) => !l.includes('warning'))).toHaveLength(1);
    }
    // Space again: everything saved before the disk filled is still there and still sent.
    rmSync(join(fs.dir, '.filler'));
    const recovered = await ask(['-m', 'echo', '-c', 'recovered']);
    expect(recovered.code, recovered.stderr).toBe(0);
    const resent = (ctx.gateway.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages;
    for (const m of messages.slice(0, -1)) expect(resent.some((r) => r.role === m.role && r.content === m.content)).toBe(true);
  }, 240_000);
});
