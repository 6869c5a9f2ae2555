// `gatechat batch --remote` (SPEC §19) as a user runs it: the built binary against the dev gateway's
// Batch APIs over loopback. Every line comes back once on both interfaces; a kill -9 right after
// submitting and a rerun make no second batch; detach, status, cancel and Ctrl-C leave the batch
// running on the gateway and a rerun collects it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { runCli } from '../helpers/cli.js';

const ctx = useGatewayAndUser();

interface OutLine {
  id: string | number;
  status: string;
  text?: string;
  data?: unknown;
  api?: string;
  error?: { message: string; exit_code: number };
}

function writeInput(name: string, lines: unknown[]): string {
  const path = join(ctx.user.home, name);
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return path;
}

function readOutput(path: string): OutLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as OutLine);
}

function batch(args: string[], options: Parameters<typeof runCli>[1] = {}) {
  return runCli(['batch', ...args, '--base-url', ctx.base], { env: ctx.user.env(), timeoutMs: 30_000, ...options });
}

/** Batches created on the gateway (either interface) since the test began. */
function batchesCreated(): number {
  return ctx.gateway.requests.filter((r) => r.method === 'POST' && (r.path === '/v1/batches' || r.path === '/v1/messages/batches')).length;
}

/** Requests sent one by one, as a local batch sends them: a remote batch sends none. */
function singleRequests(): number {
  return ctx.gateway.requests.filter((r) => r.path === '/v1/chat/completions' || r.path === '/v1/messages').length;
}

/** Sends `signal` once the state file beside the output exists: right after the first batch was created. */
function onceSubmitted(statePath: string, signal: NodeJS.Signals) {
  return (child: ChildProcess) => {
    const timer = setInterval(() => {
      if (!existsSync(statePath)) return;
      clearInterval(timer);
      child.kill(signal);
    }, 10);
    child.on('exit', () => clearInterval(timer));
  };
}

/** 300 lines: plain prompts (id = line number), string ids, one id no custom_id can carry, one failing line. */
function threeHundred(): { lines: unknown[]; ids: Array<string | number> } {
  const lines: unknown[] = [];
  const ids: Array<string | number> = [];
  for (let n = 1; n <= 300; n++) {
    if (n === 150) {
      lines.push({ id: 'bad', prompt: 'this one fails', model: 'fail-500' });
      ids.push('bad');
    } else if (n === 7) {
      lines.push({ id: 'an id / with spaces, é', prompt: 'odd id' });
      ids.push('an id / with spaces, é');
    } else if (n % 3 === 0) {
      lines.push({ id: `q${n}`, prompt: `prompt ${n}` });
      ids.push(`q${n}`);
    } else {
      lines.push(`prompt ${n}`);
      ids.push(n);
    }
  }
  return { lines, ids };
}

describe('batch --remote: an upload larger than one write', () => {
  // The upload goes out in ~64 KiB pieces: lines on both sides of each piece's edge arrive whole.
  it.each(['chat', 'messages'])('--api %s: 1500 lines of ~250 bytes (~370 KiB) come back, each once and intact', async (api) => {
    const pad = 'x'.repeat(200);
    const lines = Array.from({ length: 1500 }, (_, i) => ({ id: `p${i + 1}`, prompt: `prompt ${i + 1} ${pad}` }));
    const input = writeInput(`big-${api}.jsonl`, lines);
    const output = join(ctx.user.home, `big-out-${api}.jsonl`);
    const result = await batch([input, '--remote', '--output', output, '--api', api, '-m', 'echo']);
    expect(result.code, result.stderr).toBe(0);
    const out = readOutput(output);
    expect(out).toHaveLength(1500);
    const byId = new Map(out.map((l) => [l.id, l]));
    for (let n = 1; n <= 1500; n++) expect(byId.get(`p${n}`)).toMatchObject({ status: 'complete', text: `prompt ${n} ${pad}` });
  });
});

describe('batch --remote: 300 lines come back as 300 output lines', () => {
  it.each(['chat', 'messages'])('--api %s: each id once, the failing line with its error, exit 6; one batch, no single requests', async (api) => {
    const { lines, ids } = threeHundred();
    const input = writeInput(`in-${api}.jsonl`, lines);
    const output = join(ctx.user.home, `out-${api}.jsonl`);
    const result = await batch([input, '--remote', '--output', output, '--api', api, '-m', 'echo', '-s', 'be brief', '-t', '0.3']);
    expect(result.code, result.stderr).toBe(6);
    const out = readOutput(output);
    expect(out).toHaveLength(300);
    expect(new Set(out.map((l) => JSON.stringify(l.id))).size).toBe(300);
    expect(out.map((l) => l.id).sort()).toEqual([...ids].sort());
    const byId = new Map(out.map((l) => [l.id, l]));
    expect(byId.get(1)).toMatchObject({ status: 'complete', text: 'prompt 1', api });
    expect(byId.get('q3')).toMatchObject({ status: 'complete', text: 'prompt 3' });
    expect(byId.get('an id / with spaces, é')).toMatchObject({ status: 'complete', text: 'odd id' });
    // The same line a local batch writes for a 500: status, message and exit code.
    expect(byId.get('bad')).toMatchObject({ status: 'error', error: { exit_code: 6, message: expect.stringMatching(/^gateway error: HTTP 500: .*fail-500/) } });
    expect(out.filter((l) => l.status === 'complete')).toHaveLength(299);
    expect(batchesCreated()).toBe(1);
    expect(singleRequests()).toBe(0);
    expect(result.stderr).toMatch(/batch: 299 complete, 1 failed .*exit 6 \(line 150, id "bad": gateway error: HTTP 500/);
    // Collected: the saved ids are gone, so a rerun would submit the failed line again, as a local batch resends it.
    expect(existsSync(`${output}.batches`)).toBe(false);
    if (api === 'messages') {
      // The request bodies are a local batch's (system, temperature from the options), not streamed.
      const created = ctx.gateway.requests.find((r) => r.path === '/v1/messages/batches')!.body as { requests: Array<{ custom_id: string; params: Record<string, unknown> }> };
      expect(created.requests).toHaveLength(300);
      expect(created.requests[0]).toEqual({ custom_id: 'l1', params: { model: 'echo', max_tokens: 4096, messages: [{ role: 'user', content: 'prompt 1' }], system: 'be brief', temperature: 0.3 } });
      for (const request of created.requests) expect(request.custom_id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    }
  });

  it('kill -9 right after submitting, then the same command again: it collects the saved batch, creates no second one', async () => {
    const { lines, ids } = threeHundred();
    // The first two polls answer 500 (retried): the killed run is still waiting when the kill comes.
    lines[0] = { id: 1, prompt: 'prompt 1', model: 'batch-poll-500' };
    const input = writeInput('in-kill.jsonl', lines);
    const output = join(ctx.user.home, 'out-kill.jsonl');
    const args = [input, '--remote', '--output', output, '-m', 'echo'];
    const killed = await batch(args, { onSpawn: onceSubmitted(`${output}.batches`, 'SIGKILL') });
    expect(killed.signal).toBe('SIGKILL');
    expect(batchesCreated()).toBe(1);
    expect(readOutput(output)).toHaveLength(0);
    const saved = JSON.parse(readFileSync(`${output}.batches`, 'utf8')) as { batches: Array<{ id: string; requests: number }> };
    expect(saved.batches).toEqual([expect.objectContaining({ id: expect.stringMatching(/^batch_/), requests: 300 })]);

    const rerun = await batch(args);
    expect(rerun.code, rerun.stderr).toBe(6);
    expect(batchesCreated()).toBe(1);
    const out = readOutput(output);
    expect(out.map((l) => l.id).sort()).toEqual([...ids].sort());
    expect(rerun.stderr).not.toMatch(/submitted/);

    // Once collected, a rerun resubmits only what is not complete: the failed line, alone.
    const third = await batch(args);
    expect(third.code, third.stderr).toBe(6);
    expect(batchesCreated()).toBe(2);
    expect(third.stderr).toMatch(/submitted batch_\w+: 1 request \(lines 150-150\)/);
    expect(third.stderr).toMatch(/0 complete, 1 failed, 299 skipped/);
    expect(readOutput(output)).toHaveLength(301);
  });
});

describe('batch --remote: detach, status, cancel, Ctrl-C', () => {
  it('--detach prints the batch id and leaves; batch status shows it; the same command again writes the results, an expired line with its error', async () => {
    const input = writeInput('in-detach.jsonl', [{ id: 'a', prompt: 'one' }, { id: 'b', prompt: 'two', schema: 'name' }, { id: 'c', prompt: 'three', model: 'json', schema: 'name' }, { id: 'd', prompt: 'late', model: 'batch-expire' }]);
    const output = join(ctx.user.home, 'out-detach.jsonl');
    const args = [input, '--remote', '--output', output, '-m', 'echo', '--api', 'messages'];
    const detached = await batch([...args, '--detach']);
    expect(detached.code, detached.stderr).toBe(0);
    expect(detached.stdout).toMatch(/^msgbatch_\w+\n$/);
    expect(readOutput(output)).toHaveLength(0);

    const status = await batch(['status', output]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${detached.stdout.trim()}\\t(in_progress|ended) · \\d/4( · \\d failed)? · lines 1-4`));

    const collected = await batch(args);
    // "b" has a schema its echo answer does not match (exit 9, as in a local batch); "c" answers JSON that does.
    expect(collected.code, collected.stderr).toBe(9);
    const byId = new Map(readOutput(output).map((l) => [l.id, l]));
    expect(byId.get('a')).toMatchObject({ status: 'complete', text: 'one' });
    expect(byId.get('b')).toMatchObject({ status: 'error', error: { exit_code: 9 } });
    expect(byId.get('c')).toMatchObject({ status: 'complete', data: { name: expect.any(String) } });
    // The batch ended expired before "d" ran: an error line saying so, sent again by a rerun.
    expect(byId.get('d')).toMatchObject({ status: 'error', error: { exit_code: 6, message: expect.stringMatching(/^expired: the batch ended before this request ran/) } });
    expect(batchesCreated()).toBe(1);
  });

  it('Ctrl-C while waiting leaves the batch running (exit 130); batch cancel cancels it; the rerun writes the cancelled line with its error', async () => {
    // batch-hold keeps the batch running (its last line unfinished) until it is cancelled.
    const input = writeInput('in-cancel.jsonl', [{ id: 'done', prompt: 'fast' }, { id: 'held', prompt: 'slow', model: 'batch-hold' }]);
    const output = join(ctx.user.home, 'out-cancel.jsonl');
    const args = [input, '--remote', '--output', output, '-m', 'echo'];
    const stopped = await batch(args, { onSpawn: onceSubmitted(`${output}.batches`, 'SIGINT') });
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(/the batches keep running on the gateway: rerun the same command to collect the results, or cancel them: gatechat batch cancel /);

    // The first line finishes 0.3 s after creation; cancelled before that, it would be cancelled too.
    let status = await batch(['status', output]);
    for (let i = 0; i < 20 && !/\tin_progress · 1\/2 · lines 1-2$/m.test(status.stdout); i++) status = await batch(['status', output]);
    expect(status.stdout).toMatch(/^batch_\w+\tin_progress · 1\/2 · lines 1-2\n$/);
    const cancel = await batch(['cancel', output]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toMatch(/^batch_\w+\tcancelling · /);
    expect(ctx.gateway.requests.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(1);

    const collected = await batch(args);
    expect(collected.code, collected.stderr).toBe(130);
    const byId = new Map(readOutput(output).map((l) => [l.id, l]));
    expect(byId.get('done')).toMatchObject({ status: 'complete', text: 'fast' });
    expect(byId.get('held')).toMatchObject({ status: 'cancelled', error: { exit_code: 130, message: expect.stringMatching(/^cancelled: the batch was cancelled/) } });
    expect(batchesCreated()).toBe(1);
  });

  it('a state file whose batches are all written (killed before removing it) is not polled: the run starts fresh', async () => {
    const input = writeInput('in-stale.jsonl', [{ id: 'a', prompt: 'one' }]);
    const output = join(ctx.user.home, 'out-stale.jsonl');
    writeFileSync(`${output}.batches`, JSON.stringify({ version: 1, api: 'chat', base_url: ctx.base, input, output_offset: 0, batches: [{ id: 'batch_gone', first_line: 1, last_line: 1, requests: 1, collected: true }] }));
    const result = await batch([input, '--remote', '--output', output, '-m', 'echo']);
    expect(result.code, result.stderr).toBe(0);
    expect(readOutput(output)).toEqual([expect.objectContaining({ id: 'a', status: 'complete', text: 'one' })]);
    expect(ctx.gateway.requests.some((r) => r.path.includes('batch_gone'))).toBe(false);
    expect(batchesCreated()).toBe(1);
    expect(existsSync(`${output}.batches`)).toBe(false);
  });

  it('refused before anything is sent: no --output, stdin, --detach alone, tools that run, another gateway than the saved one', async () => {
    const input = writeInput('in-bad.jsonl', ['x']);
    const output = join(ctx.user.home, 'out-bad.jsonl');
    const cases: Array<[string[], RegExp]> = [
      [[input, '--remote', '-m', 'echo'], /--remote: needs --output/],
      [['-', '--remote', '--output', output, '-m', 'echo'], /--remote: needs a file, not stdin/],
      [[input, '--detach', '--output', output, '-m', 'echo'], /--detach: only with --remote/],
      [[input, '--remote', '--output', output, '-m', 'echo', '--mcp', 'x=true'], /--remote: tools that run/],
      [['status', output], /batch status: no remote batch is saved beside/],
    ];
    for (const [args, message] of cases) {
      const result = await batch(args, { stdin: 'x\n' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    writeFileSync(`${output}.batches`, JSON.stringify({ version: 1, api: 'chat', base_url: 'http://127.0.0.1:1/v1', input, output_offset: 0, batches: [{ id: 'batch_x', first_line: 1, last_line: 1, requests: 1 }] }));
    const elsewhere = await batch([input, '--remote', '--output', output, '-m', 'echo']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/its batches are on http:\/\/127\.0\.0\.1:1\/v1, not on http:\/\/127\.0\.0\.1:\d+\/v1; pass --base-url/);
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});
