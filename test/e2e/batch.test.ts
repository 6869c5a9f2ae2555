// `gatechat batch` (SPEC §13) as a user runs it: the built binary against the dev gateway over
// loopback. Every line answered exactly once across a kill and a rerun, per-line status and exit
// codes, back-off under a 429 burst (the gateway's own in-flight count), stdin, torn output lines.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { binPath, runCli, shellQuoteArgs } from '../helpers/cli.js';

const ctx = useGatewayAndUser();

interface OutLine {
  id: string | number;
  status: string;
  text?: string;
  error?: { message: string; exit_code: number };
}

function writeInput(name: string, lines: unknown[]): string {
  const path = join(ctx.user.home, name);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' && line.startsWith('RAW:') ? line.slice(4) : JSON.stringify(line))).join('\n') + '\n');
  return path;
}

/** Parseable output lines; a torn line (only ever the last of a run) is skipped, as the resume reader does. */
function readOutput(path: string): OutLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as OutLine];
      } catch {
        return [];
      }
    });
}

function batch(args: string[], options: Parameters<typeof runCli>[1] = {}) {
  return runCli(['batch', ...args, '--base-url', ctx.base], { env: ctx.user.env(), ...options });
}

/** The prompts the gateway received (last user message of each completion request). */
function promptsSent(): string[] {
  return ctx.gateway.requests
    .filter((r) => r.path.endsWith('/chat/completions'))
    .map((r) => {
      const messages = (r.body as { messages: Array<{ role: string; content: string }> }).messages;
      return messages.at(-1)!.content;
    });
}

/** Calls `act` once the output file holds at least `count` complete lines (polled on each stdout/stderr chunk and a timer). */
function whenComplete(path: string, count: number, act: (child: ChildProcess) => void) {
  return (child: ChildProcess) => {
    const timer = setInterval(() => {
      if (readOutput(path).filter((l) => l.status === 'complete').length >= count) {
        clearInterval(timer);
        act(child);
      }
    }, 20);
    child.on('exit', () => clearInterval(timer));
  };
}

/** `count` slow lines at --concurrency 2, the run sent `signal` once `after` lines are complete in the output. */
async function stoppedRun(name: string, count: number, model: string, after: number, signal: NodeJS.Signals) {
  const ids = Array.from({ length: count }, (_, i) => `${name}${i}`);
  const input = writeInput(`${name}.jsonl`, ids.map((id) => ({ id, prompt: `prompt ${id}`, model, max_tokens: 3 })));
  const output = join(ctx.user.home, `${name}.out.jsonl`);
  const first = await batch([input, '--concurrency', '2', '--output', output], { onSpawn: whenComplete(output, after, (child) => child.kill(signal)) });
  return { ids, input, output, first };
}

const countBy = (lines: OutLine[], status: string) => lines.filter((l) => l.status === status).length;

/** The resume guarantee: in the output file, every id has exactly one complete line. */
function expectEachCompleteOnce(output: string, ids: Array<string | number>): void {
  const lines = readOutput(output);
  for (const id of ids) expect(lines.filter((l) => l.id === id && l.status === 'complete'), String(id)).toHaveLength(1);
}

describe('batch: per-line results', () => {
  it('a mix of good lines and fault models: each line its own status, exit code of the first failed line', async () => {
    const input = writeInput('mix.jsonl', [
      'first',
      { id: 'nf', prompt: 'x', model: 'fail-404' },
      { prompt: 'third', model: 'echo', system: 'be brief' },
      { id: 'ee', prompt: 'x', model: 'error-event' },
      { id: 'dr', prompt: 'x', model: 'drop-after-2' },
      { id: 'au', prompt: 'x', model: 'fail-401' },
    ]);
    const result = await batch([input, '-m', 'echo', '--retries', '0']);
    expect(result.code, result.stderr).toBe(4);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as OutLine);
    expect(lines).toHaveLength(6);
    const byId = new Map(lines.map((l) => [l.id, l]));
    expect(byId.get(1)).toMatchObject({ status: 'complete', text: 'first' });
    expect(byId.get(3)).toMatchObject({ status: 'complete', text: 'third' });
    expect(byId.get('nf')).toMatchObject({ status: 'error', error: { exit_code: 4 } });
    expect(byId.get('ee')).toMatchObject({ status: 'error', error: { exit_code: 6 } });
    expect(byId.get('dr')).toMatchObject({ status: 'interrupted', error: { exit_code: 8 } });
    expect(byId.get('au')).toMatchObject({ status: 'error', error: { exit_code: 3 } });
    // The line's system prompt went with it, the others had none.
    const third = ctx.gateway.requests.find((r) => JSON.stringify(r.body).includes('third'))!;
    expect((third.body as { messages: Array<{ role: string }> }).messages[0]).toEqual({ role: 'system', content: 'be brief' });
    expect(result.stderr).toMatch(/batch: 2 complete, 4 failed .*exit 4 \(line 2, id "nf": gateway rejected the request: HTTP 404/);
    // stderr is a pipe here: the summary only, no progress line, no cursor movement.
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/[\r\x1b]/);
    // Nothing is saved in batch without --save.
    expect(existsSync(join(ctx.user.dataDir, 'conversations'))).toBe(false);
  });

  it('every line complete: exit 0; each line a §4 object plus id and status; -t and --max-tokens are defaults a line can override', async () => {
    const input = writeInput('ok.jsonl', [{ id: 'a', prompt: 'one two three' }, { id: 'b', prompt: 'x', model: 'lorem-50', max_tokens: 3, temperature: 0 }]);
    const result = await batch([input, '-m', 'echo', '-t', '0.5', '--max-tokens', '7']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const b = lines.find((l) => l.id === 'b');
    expect(Object.keys(b)).toEqual(
      expect.arrayContaining(['id', 'text', 'reasoning', 'tool_calls', 'finish_reason', 'usage', 'model', 'api', 'cid', 'status']),
    );
    expect(b).toMatchObject({ status: 'complete', finish_reason: 'length', text: 'Lorem ipsum dolor', model: 'lorem-50' });
    const bodies = ctx.gateway.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies.find((body) => body.model === 'echo')).toMatchObject({ temperature: 0.5, max_tokens: 7 });
    expect(bodies.find((body) => body.model === 'lorem-50')).toMatchObject({ temperature: 0, max_tokens: 3 });
  });

  it('-o is a default for every line, a line\'s "options" add to it; a line\'s model goes through aliases (config --model)', async () => {
    const alias = await runCli(['config', 'set', '--model', 'fast', 'model', 'lorem-3'], { env: ctx.user.env() });
    expect(alias.code, alias.stderr).toBe(0);
    const input = writeInput('opts.jsonl', [
      { id: 'plain', prompt: 'a' },
      { id: 'more', prompt: 'b', options: { seed: 7 } },
      { id: 'over', prompt: 'c', options: { top_p: 0.1 } },
      { id: 'aliased', prompt: 'd', model: 'fast' },
    ]);
    const result = await batch([input, '-m', 'echo', '-o', 'top_p=0.5']);
    expect(result.code, result.stderr).toBe(0);
    const bodyOf = (text: string) =>
      ctx.gateway.requests.map((r) => r.body as Record<string, unknown> & { messages: Array<{ content: string }> }).find((b) => b.messages.at(-1)!.content === text)!;
    expect(bodyOf('a')).toMatchObject({ model: 'echo', top_p: 0.5 });
    expect(bodyOf('a').seed).toBeUndefined();
    expect(bodyOf('b')).toMatchObject({ top_p: 0.5, seed: 7 });
    expect(bodyOf('c')).toMatchObject({ top_p: 0.1 });
    expect(bodyOf('d')).toMatchObject({ model: 'lorem-3', top_p: 0.5 });
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.find((l) => l.id === 'aliased')).toMatchObject({ status: 'complete', text: 'Lorem ipsum dolor' });
  });

  it('-a goes with every line, a line\'s "attach" adds its own; a missing attachment is named before anything is sent', async () => {
    writeFileSync(join(ctx.user.home, 'shared.txt'), 'SHARED NOTE\n');
    // The PNG signature is enough for the type sniffing; echo names the image part.
    writeFileSync(join(ctx.user.home, 'dot.png'), Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(32)]));
    const input = writeInput('attach.jsonl', [
      { id: 'plain', prompt: 'first' },
      { id: 'img', prompt: 'second', attach: [join(ctx.user.home, 'dot.png')] },
    ]);
    // A line's attachments must lie in the current directory (SPEC §20): the user's home here.
    const result = await batch([input, '-m', 'echo', '-a', join(ctx.user.home, 'shared.txt')], { cwd: ctx.user.home });
    expect(result.code, result.stderr).toBe(0);
    const lines = new Map(result.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((l) => [l.id, l]));
    expect(lines.get('plain').text).toContain('SHARED NOTE');
    expect(lines.get('plain').text).toContain('first');
    expect(lines.get('plain').text).not.toContain('[image');
    expect(lines.get('img').text).toContain('SHARED NOTE');
    expect(lines.get('img').text).toMatch(/\[image image\/png 40 bytes\]/);

    ctx.gateway.requests.length = 0;
    const missing = writeInput('attach-missing.jsonl', ['fine', { prompt: 'x', attach: 'nowhere.txt' }]);
    const refused = await batch([missing, '-m', 'echo']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/line 2: cannot attach nowhere\.txt/);
    expect(ctx.gateway.requests).toHaveLength(0);
    // From stdin the same line is recorded as invalid and the others are answered.
    const piped = await batch(['-', '-m', 'echo'], { stdin: readFileSync(missing) });
    expect(piped.code).toBe(2);
    const out = piped.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(out.find((l) => l.id === 2)).toMatchObject({ status: 'invalid' });
    expect(out.find((l) => l.id === 1)).toMatchObject({ status: 'complete', text: 'fine' });
  });

  it('--schema checks every answer, a line\'s "schema" replaces it; a mismatch is an error line (exit 9) that a rerun sends again', async () => {
    const input = writeInput('schema.jsonl', [
      { id: 'ok', prompt: 'a film', model: 'json' },
      { id: 'own', prompt: 'a person', model: 'json', schema: 'name, age int' },
      { id: 'bad', prompt: '{"title": 3, "year": 1999}', model: 'echo' },
    ]);
    const output = join(ctx.user.home, 'schema.out.jsonl');
    const result = await batch([input, '--schema', 'title, year int', '--output', output]);
    expect(result.code, result.stderr).toBe(9);
    const byId = new Map(readOutput(output).map((l) => [l.id, l as OutLine & { data?: Record<string, unknown> }]));
    expect(byId.get('ok')).toMatchObject({ status: 'complete', data: { title: expect.any(String), year: expect.any(Number) } });
    expect(byId.get('own')).toMatchObject({ status: 'complete', data: { name: expect.any(String), age: expect.any(Number) } });
    expect(byId.get('bad')).toMatchObject({ status: 'error', error: { exit_code: 9 } });
    expect(byId.get('bad')!.error!.message).toMatch(/title/);
    const bodies = ctx.gateway.requests.map((r) => r.body as { messages: Array<{ content: string }>; response_format?: { json_schema: { schema: { required: string[] } } } });
    expect(bodies.find((b) => b.messages.at(-1)!.content === 'a person')!.response_format!.json_schema.schema.required).toEqual(['name', 'age']);
    expect(bodies.find((b) => b.messages.at(-1)!.content === 'a film')!.response_format!.json_schema.schema.required).toEqual(['title', 'year']);

    ctx.gateway.requests.length = 0;
    const again = await batch([input, '--schema', 'title, year int', '--output', output]);
    expect(again.code).toBe(9);
    expect(promptsSent()).toEqual(['{"title": 3, "year": 1999}']);
  });

  it('a malformed line in a file: named by number, exit 2, nothing sent, nothing written', async () => {
    const input = writeInput('bad.jsonl', ['fine', { prompt: 'x', temperature: -1 }, 'RAW:{not json', 'also fine']);
    const output = join(ctx.user.home, 'bad.out.jsonl');
    const result = await batch([input, '-m', 'echo', '--output', output]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/line 2: "temperature" must be a number ≥ 0 \(and 1 more malformed line\); nothing was sent/);
    expect(ctx.gateway.requests).toHaveLength(0);
    expect(existsSync(output)).toBe(false);
  });

  it('input from stdin: answered line by line; a malformed line is recorded as invalid and the batch exits 2', async () => {
    const stdin = ['"from stdin"', '{"prompt":"second","promt":"typo"}', '{"id":"x","prompt":"third"}', ''].join('\n');
    const result = await batch(['-', '-m', 'echo'], { stdin });
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as OutLine);
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.id === 1)).toMatchObject({ status: 'complete', text: 'from stdin' });
    expect(lines.find((l) => l.id === 'x')).toMatchObject({ status: 'complete', text: 'third' });
    expect(lines.find((l) => l.id === 2)).toMatchObject({ status: 'invalid', error: { exit_code: 2 } });
    expect(lines.find((l) => l.id === 2)!.error!.message).toMatch(/line 2: unknown field "promt"/);
    expect(promptsSent().sort()).toEqual(['from stdin', 'third']);
  });
});

describe('batch: a line attaches only inside the current directory (SPEC §20)', () => {
  /** A working directory beside a secret, with a link inside that leads to it. */
  function workspace() {
    const secret = join(ctx.user.home, 'config', 'gatechat', 'config.json');
    mkdirSync(join(secret, '..'), { recursive: true });
    writeFileSync(secret, '{"api-key":"sk-LEAKED-77"}\n');
    const work = join(ctx.user.home, 'work');
    mkdirSync(join(work, 'docs'), { recursive: true });
    writeFileSync(join(work, 'docs', 'notes.md'), 'inside notes\n');
    symlinkSync(secret, join(work, 'docs', 'sneaky.md'));
    const input = join(work, 'in.jsonl');
    const lines = [
      { id: 'inside', prompt: 'fine', attach: 'docs/notes.md' },
      { id: 'abs', prompt: 'translate', attach: secret },
      { id: 'link', prompt: 'x', attach: 'docs/sneaky.md' },
      { id: 'up', prompt: 'y', attach: ['docs/notes.md', '../config'] },
      // A "schema" that names a file is read like an attachment (and sent as the schema).
      { id: 'schema', prompt: 'z', schema: secret },
    ];
    writeFileSync(input, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return { secret, work, input };
  }

  it('one that leaves it (a path, ../, a link inside that leads out) refuses the batch before anything is sent', async () => {
    const { secret, work, input } = workspace();
    const result = await batch([input, '-m', 'echo'], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      `line 2: "attach": ${secret} is outside the current directory ${work}; pass --attach-root <dir> to allow it (and 3 more malformed lines); nothing was sent`,
    );
    expect(ctx.gateway.requests).toHaveLength(0);
    expect(result.stdout + result.stderr).not.toContain('LEAKED');
  });

  it('--attach-root <dir> sets the root instead; --attach-root / allows every path', async () => {
    const { work, input } = workspace();
    // Without the schema line: allowed, the config file would be refused as a schema.
    writeFileSync(input, readFileSync(input, 'utf8').split('\n').filter((line) => !line.includes('"schema"')).join('\n'));
    const refused = await batch([input, '-m', 'echo', '--attach-root', join(work, 'docs')], { cwd: work });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/line 2: "attach": .* is outside --attach-root .*docs; pass --attach-root <dir> to allow it/);
    for (const root of [ctx.user.home, '/']) {
      const result = await batch([input, '-m', 'echo', '--attach-root', root], { cwd: work });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('LEAKED');
    }
    const missing = await batch([input, '-m', 'echo', '--attach-root', join(work, 'nowhere')], { cwd: work });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^gatechat: --attach-root: .*nowhere.*\n$/);
  });

  it('from stdin: such a line is recorded as invalid, its file never read nor sent; the others are answered, exit 2', async () => {
    const { work, input } = workspace();
    const result = await batch(['-', '-m', 'echo'], { cwd: work, stdin: readFileSync(input) });
    expect(result.code).toBe(2);
    const out = new Map(result.stdout.trim().split('\n').map((l) => JSON.parse(l) as OutLine).map((l) => [l.id, l]));
    expect(out.get('inside')).toMatchObject({ status: 'complete' });
    expect(out.get('inside')!.text).toContain('inside notes');
    for (const id of ['abs', 'link', 'up', 'schema']) {
      expect(out.get(id)).toMatchObject({ status: 'invalid', error: { exit_code: 2 } });
      expect(out.get(id)!.error!.message).toMatch(/is outside the current directory .*--attach-root <dir>/);
    }
    expect(promptsSent()).toEqual(['docs/notes.md\n```\ninside notes\n```\n\nfine']);
    expect(JSON.stringify(ctx.gateway.requests)).not.toContain('LEAKED');
    expect(result.stdout + result.stderr).not.toContain('LEAKED');
  });
});

describe('batch: the reader of stdout', () => {
  it('goes away (| head -1): the batch stops quietly, exit 0', async () => {
    const input = writeInput('head.jsonl', Array.from({ length: 2000 }, (_, i) => `p${i}`));
    const command = `${shellQuoteArgs([process.execPath, binPath, 'batch', input, '--base-url', ctx.base, '-m', 'echo'])} | head -1; echo "status \${PIPESTATUS[0]}" >&2`;
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile('bash', ['-c', command], { env: { ...process.env, ...ctx.user.env() }, timeout: 20_000 }, (error, out, err) => (error ? reject(error) : resolve({ stdout: out, stderr: err })));
    });
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'complete' });
    expect(stderr).toMatch(/status 0/);
    expect(stderr).not.toMatch(/internal error|EPIPE/);
    // It stopped taking lines: at most what fits in the pipe's buffer (64 KiB) was answered, not 2000.
    expect(ctx.gateway.requests.length).toBeLessThan(1000);
  });
});

describe('batch: resume', () => {
  it('a torn last output line is tolerated: complete ids are skipped, the rest appended, earlier bytes untouched', async () => {
    const input = writeInput('resume.jsonl', ['one', 'two', 'three']);
    const output = join(ctx.user.home, 'resume.out.jsonl');
    const before =
      JSON.stringify({ id: 1, text: 'one', status: 'complete' }) + '\n' + JSON.stringify({ id: 3, text: '', status: 'error' }) + '\n' + '{"id":2,"text":"tw';
    writeFileSync(output, before);
    const result = await batch([input, '-m', 'echo', '--output', output]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    const after = readFileSync(output, 'utf8');
    expect(after.startsWith(before + '\n')).toBe(true);
    expect(promptsSent().sort()).toEqual(['three', 'two']);
    expectEachCompleteOnce(output, [1, 2, 3]);
    expect(result.stderr).toMatch(/2 complete, 1 skipped/);

    // A third run has nothing left to do and sends nothing.
    ctx.gateway.requests.length = 0;
    const again = await batch([input, '-m', 'echo', '--output', output]);
    expect(again.code, again.stderr).toBe(0);
    expect(ctx.gateway.requests).toHaveLength(0);
    expect(readFileSync(output, 'utf8')).toBe(after);
  });

  it('killed mid-run, then rerun: every line answered exactly once, and no complete line sent twice', async () => {
    const { ids, input, output, first } = await stoppedRun('kill', 12, 'slow-40', 3, 'SIGKILL');
    expect(first.signal).toBe('SIGKILL');
    const afterKill = readOutput(output);
    const doneFirst = new Set(afterKill.filter((l) => l.status === 'complete').map((l) => l.id));
    expect(doneFirst.size).toBeGreaterThanOrEqual(3);
    expect(doneFirst.size).toBeLessThan(ids.length);

    const sentBefore = ctx.gateway.requests.length;
    const second = await batch([input, '--concurrency', '2', '--output', output]);
    expect(second.code, second.stderr).toBe(0);
    const resent = ctx.gateway.requests.slice(sentBefore).map((r) => JSON.stringify(r.body));
    for (const id of doneFirst) expect(resent.some((body) => body.includes(`prompt ${id}"`))).toBe(false);
    expectEachCompleteOnce(output, ids);
  });

  it('Ctrl-C: no new lines, those in flight recorded as cancelled, exit 130; a rerun finishes the job', async () => {
    const { ids, input, output, first } = await stoppedRun('int', 10, 'slow-60', 2, 'SIGINT');
    expect(first.code, first.stderr).toBe(130);
    const lines = readOutput(output);
    expect(countBy(lines, 'cancelled')).toBeGreaterThanOrEqual(1);
    expect(countBy(lines, 'complete') + countBy(lines, 'cancelled')).toBeLessThan(ids.length);
    expect(first.stderr).toMatch(/cancelled.*exit 130/);

    const second = await batch([input, '--concurrency', '2', '--output', output]);
    expect(second.code, second.stderr).toBe(0);
    expectEachCompleteOnce(output, ids);
  });
});

describe('batch: rate limits', () => {
  it('a 429 burst lowers the requests in flight (as the gateway counts them) and the batch still completes', async () => {
    await fetch(`${ctx.gateway.url}/__gatechat/requests`, { method: 'DELETE' });
    const input = writeInput('busy.jsonl', Array.from({ length: 60 }, (_, i) => `busy ${i}`));
    const result = await batch([input, '-m', 'busy-4', '--concurrency', '16', '--retries', '8'], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as OutLine);
    expect(lines).toHaveLength(60);
    expect(countBy(lines, 'complete')).toBe(60);

    const stats = (await (await fetch(`${ctx.gateway.url}/__gatechat/stats`)).json()) as { peak_in_flight: number };
    const arrivals = ctx.gateway.requests.map((r) => r.in_flight!);
    // The burst happened: more in flight than busy-4 takes, and some requests were refused.
    expect(stats.peak_in_flight).toBeGreaterThan(4);
    expect(arrivals.length).toBeGreaterThan(60);
    // After it, the client kept fewer in flight than --concurrency: at most half of it.
    const late = arrivals.slice(Math.floor(arrivals.length / 2));
    expect(Math.max(...late)).toBeLessThanOrEqual(8);
  });

  it('a concurrency limit far below --concurrency fails no line: refusals lower the concurrency, not the lines’ retries', async () => {
    // busy-2 refuses whatever is over 2 in flight; --retries stays at its default (2), which a line
    // refused three times in a row would use up. A few runs: before the fix 1–3 lines failed in each.
    const input = writeInput('busy2.jsonl', Array.from({ length: 40 }, (_, i) => `busy ${i}`));
    for (let run = 0; run < 3; run++) {
      ctx.gateway.requests.length = 0;
      const result = await batch([input, '-m', 'busy-2', '--concurrency', '16'], { timeoutMs: 60_000 });
      expect(result.code, `run ${run + 1}: ${result.stderr}`).toBe(0);
      const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as OutLine);
      expect(countBy(lines, 'complete')).toBe(40);
      // The gateway did refuse some: the backoff was exercised, not avoided.
      expect(ctx.gateway.requests.length).toBeGreaterThan(40);
    }
  });
});

describe('batch: -a - (batch --help: <path|->)', () => {
  it('attaches stdin to every line of a file input; refused when stdin is the input', async () => {
    const input = writeInput('attach-stdin.jsonl', ['q1', 'q2']);
    const result = await batch([input, '-a', '-', '-m', 'echo'], { stdin: 'from stdin' });
    expect(result.code, result.stderr).toBe(0);
    expect(promptsSent().every((p) => p.includes('from stdin'))).toBe(true);
    expect(promptsSent()).toHaveLength(2);
    const refused = await batch(['-', '-a', '-', '-m', 'echo'], { stdin: '"q"\n' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--attach -: stdin holds the batch input/);
  });
});

describe('batch: usage errors', () => {
  it('a missing input file, a bad --concurrency: exit 2, one line', async () => {
    const missing = await batch([join(ctx.user.home, 'nope.jsonl'), '-m', 'echo']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/batch: cannot read .*nope\.jsonl: ENOENT/);
    const input = writeInput('c.jsonl', ['x']);
    const bad = await batch([input, '-m', 'echo', '--concurrency', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--concurrency: expected a whole number ≥ 1/);
    const same = await batch([input, '-m', 'echo', '--output', input]);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/--output: the same file as the input/);
    const nowhere = await batch([input, '-m', 'echo', '--output', join(ctx.user.home, 'no', 'such', 'dir.jsonl')]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/--output: cannot write .*dir\.jsonl: .*\(ENOENT\)/);
    const two = await batch([input, '-m', 'echo', '-m', 'lorem-3']);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/batch: -m takes one model/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('no model anywhere: the lines that lack one are named before anything is sent', async () => {
    const input = writeInput('nomodel.jsonl', [{ prompt: 'a', model: 'echo' }, 'b']);
    const result = await batch([input]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/line 2: no "model" in the line and no default model/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('--save records each line as its own conversation', async () => {
    const input = writeInput('save.jsonl', ['a', 'b']);
    const result = await batch([input, '-m', 'echo', '--save']);
    expect(result.code, result.stderr).toBe(0);
    const cids = result.stdout.trim().split('\n').map((l) => JSON.parse(l).cid);
    expect(new Set(cids).size).toBe(2);
    expect(cids.every((cid: unknown) => typeof cid === 'string')).toBe(true);
  });
});
