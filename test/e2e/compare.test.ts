// Compare mode (SPEC §11) through the built binary against the dev gateway over loopback HTTP:
// ordering, output formats, exit codes, concurrency (read from the gateway's own request log),
// one saved conversation per model, and what is refused.
import { readdirSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';

/** When each request began and ended, from the gateway's log line (`… 200 123ms`) and its arrival. */
interface Span {
  model: string;
  start: number;
  end: number;
}

const spans: Span[] = [];
const ctx = useGatewayAndUser({
  userPer: 'file',
  log: (line) => {
    const match = /^POST \S+ (\S+) \d+(?: \(closed early\))? (\d+)ms$/.exec(line);
    if (match) spans.push({ model: match[1], start: Date.now() - Number(match[2]), end: Date.now() });
  },
});
const run = (args: string[], stdin?: string) => runCli(['--base-url', ctx.base, ...args], { env: ctx.user.env(), stdin });

beforeEach(() => {
  spans.length = 0;
});

describe('compare mode, piped', () => {
  it('prints each answer whole, in the order given, after == model ==, whatever order they finish in', async () => {
    // slow-30 finishes last but is printed first; lorem-3 and echo wait for it.
    const result = await run(['-m', 'slow-30', '-m', 'lorem-3', '-m', 'echo', '--max-tokens', '8', 'hello world']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      '== slow-30 ==\nLorem ipsum dolor sit amet, consectetur adipiscing elit,\n' +
        '== lorem-3 ==\nLorem ipsum dolor\n' +
        '== echo ==\nhello world\n',
    );
    expect(ctx.gateway.requests.map((r) => r.model).sort()).toEqual(['echo', 'lorem-3', 'slow-30']);
  });

  it('one failing model: the others are printed whole; the exit code is the first failing model in the order given, after all finished', async () => {
    const result = await run(['-m', 'lorem-3', '-m', 'fail-401', '-m', 'slow-20', '-m', 'fail-404', '--max-tokens', '5', '--retries', '0', 'hi']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('== lorem-3 ==\nLorem ipsum dolor\n== fail-401 ==\n== slow-20 ==\nLorem ipsum dolor sit amet,\n== fail-404 ==\n');
    expect(result.stderr).toMatch(/^gatechat: \[fail-401\] .*401/m);
    expect(result.stderr).toMatch(/^gatechat: \[fail-404\] .*404/m);
    // The slow model was not cut short by the early failures.
    expect(spans.find((s) => s.model === 'slow-20')).toBeDefined();
  });

  it('three slow models run at once: their requests overlap in the gateway log', async () => {
    const result = await run(['-m', 'slow-40', '-m', 'slow-41', '-m', 'slow-42', '--max-tokens', '10', 'x']);
    expect(result.code, result.stderr).toBe(0);
    const slow = spans.filter((s) => s.model.startsWith('slow-'));
    expect(slow).toHaveLength(3);
    // Every request started before any of them ended: all three were in flight together.
    expect(Math.max(...slow.map((s) => s.start))).toBeLessThan(Math.min(...slow.map((s) => s.end)));
  });

  it('each exchange is saved as its own conversation; aliases and per-model settings apply per model', async () => {
    const env = ctx.user.env();
    expect((await runCli(['config', 'set', '--model', 'quiet', 'model', 'echo'], { env })).code).toBe(0);
    expect((await runCli(['config', 'set', '--model', 'quiet', 'temperature', '0.2'], { env })).code).toBe(0);
    const before = readdirSync(ctx.user.dataDir, { recursive: true }).length;
    const result = await run(['-m', 'quiet', '-m', 'lorem-2', 'saved?']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('== quiet ==\nsaved?\n== lorem-2 ==\nLorem ipsum\n');
    const bodies = Object.fromEntries(ctx.gateway.requests.map((r) => [r.model, r.body as Record<string, unknown>]));
    expect(bodies.echo.temperature).toBe(0.2);
    expect(bodies['lorem-2'].temperature).toBeUndefined();
    const history = JSON.parse((await runCli(['history', 'list', '--json'], { env })).stdout) as Array<{ model: string }>;
    expect(history.map((c) => c.model).sort()).toEqual(expect.arrayContaining(['echo', 'lorem-2']));
    expect(readdirSync(ctx.user.dataDir, { recursive: true }).length).toBeGreaterThan(before);
  });
});

describe('compare mode, --json and --jsonl', () => {
  it('--json: one array in the order given, each object with timings', async () => {
    const result = await run(['-m', 'slow-20', '-m', 'echo', '-m', 'fail-500-noretry', '--max-tokens', '3', '--json', 'ping']);
    expect(result.code).toBe(6);
    const array = JSON.parse(result.stdout) as Array<Record<string, any>>;
    expect(array.map((o) => [o.model, o.status])).toEqual([['slow-20', 'complete'], ['echo', 'complete'], [null, 'error']]);
    expect(array[1].text).toBe('ping');
    expect(array[2].error.exit_code).toBe(6);
    for (const object of array) {
      expect(object.timings.total_ms).toBeGreaterThanOrEqual(0);
      expect('first_token_ms' in object.timings).toBe(true);
    }
    expect(array[0].timings.first_token_ms).toBeGreaterThanOrEqual(0);
    expect(array[2].timings.first_token_ms).toBeNull();
  });

  it('--jsonl: every event carries model, one done per model', async () => {
    const result = await run(['-m', 'lorem-4', '-m', 'echo', '--jsonl', 'hey you']);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    expect(events.every((e) => e.model === 'lorem-4' || e.model === 'echo')).toBe(true);
    const done = events.filter((e) => e.type === 'done');
    expect(done.map((e) => e.model).sort()).toEqual(['echo', 'lorem-4']);
    const text = (model: string) => events.filter((e) => e.model === model && e.type === 'text').map((e) => e.delta).join('');
    expect(text('echo')).toBe('hey you');
    expect(text('lorem-4')).toBe('Lorem ipsum dolor sit');
    // Each model's done comes after its own events.
    for (const model of ['echo', 'lorem-4']) {
      const mine = events.filter((e) => e.model === model);
      expect(mine[mine.length - 1].type).toBe('done');
    }
  });
});

describe('compare mode, refused and interrupted', () => {
  it('not with -c / --cid, not in chat; a bad alias setting fails before anything is sent (exit 2)', async () => {
    for (const args of [
      ['-m', 'echo', '-m', 'lorem-2', '-c', 'x'],
      ['-m', 'echo', '-m', 'lorem-2', '--cid', 'abc', 'x'],
      ['chat', '--base-url', ctx.base, '-m', 'echo', '-m', 'lorem-2', 'x'],
      ['-m', 'echo', '-m', 'bad model', 'x'],
    ]) {
      const result = await runCli(args[0] === 'chat' ? args : ['--base-url', ctx.base, ...args], { env: ctx.user.env() });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('SIGINT cancels every model, keeps what arrived and exits 130', async () => {
    let seen = '';
    const result = await runCli(['--base-url', ctx.base, '-m', 'slow-200', '-m', 'slow-210', '--max-tokens', '200', 'x'], {
      env: ctx.user.env(),
      onSpawn: (child) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          const before = seen;
          seen += chunk.toString();
          // Interrupt once the first model's answer is under way (its second word has arrived).
          if (!before.includes('Lorem ipsum') && seen.includes('Lorem ipsum')) child.kill('SIGINT');
        });
      },
    });
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/^== slow-200 ==\nLorem ipsum/);
    // The second model's first word came with its first event: kept and printed after the first answer.
    expect(result.stdout).toMatch(/\n== slow-210 ==\nLorem/);
    expect(result.stdout).not.toContain('consectetur adipiscing elit, sed do eiusmod tempor incididunt');
    expect(result.stderr).toContain('interrupted; the partial answers were kept');
  });
});
