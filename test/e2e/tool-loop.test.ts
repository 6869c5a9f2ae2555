// The tool loop (SPEC §15) as scripts meet it: the built binary, a command tool from the --tools file,
// the dev gateway's `agent` model over loopback HTTP, on both interfaces, streamed and not.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { isRunning } from '../helpers/processes.js';

const ctx = useGatewayAndUser();

function gatechat(args: string[], env: Record<string, string> = {}) {
  return runCli(['--base-url', ctx.base, ...args], { env: { ...ctx.user.env(), ...env } });
}

/** A tools file whose `shout` tool upper-cases its `text` argument and records that it ran. */
function toolsFile(command?: string, name = 'shout'): { path: string; ranMarker: string } {
  const ranMarker = join(ctx.user.home, `ran-${name}-${Math.random().toString(36).slice(2)}`);
  const path = join(ctx.user.home, `tools-${Math.random().toString(36).slice(2)}.json`);
  const script = command ?? `touch ${ranMarker}; node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write("got "+JSON.parse(s).text.toUpperCase()))'`;
  writeFileSync(
    path,
    JSON.stringify([
      { type: 'function', function: { name, description: 'shouts', parameters: { type: 'object', properties: { text: { type: 'string' } } } }, 'x-command': script },
    ]),
  );
  return { path, ranMarker };
}

const requests = () => ctx.gateway.requests.filter((r) => r.path.endsWith('/chat/completions') || r.path.endsWith('/messages'));

describe('command tools in a loop', () => {
  for (const api of ['chat', 'messages'] as const) {
    for (const stream of ['--stream', '--no-stream']) {
      it(`${api} ${stream}: runs an allowed call and sends its result back; stdout is the final answer`, async () => {
        const { path, ranMarker } = toolsFile();
        const before = requests().length;
        const result = await gatechat(['--no-save', '-m', 'agent', '--api', api, stream, '--tools', path, '--allow', 'shout', 'call shout {"text":"hi there"}']);
        expect(result.code, result.stderr).toBe(0);
        expect(existsSync(ranMarker)).toBe(true);
        expect(result.stdout).toBe('results: got HI THERE\n');
        // On its own line, also after a thinking model's reasoning (which has no newline of its own).
        expect(result.stderr).toMatch(/^⚙ shout \{"text":"hi there"\}/m);
        expect(result.stderr).toMatch(/✓ \d+\.\d s · 12 B/);
        const sent = requests().slice(before);
        expect(sent).toHaveLength(2);
        // x-command is never sent.
        expect(JSON.stringify(sent[0].body)).not.toContain('x-command');
        const follow = sent[1].body as Record<string, any>;
        if (api === 'chat') {
          const tool = follow.messages.at(-1);
          expect(tool).toMatchObject({ role: 'tool', content: 'got HI THERE' });
          expect(tool.tool_call_id).toBe(follow.messages.at(-2).tool_calls[0].id);
        } else {
          const assistant = follow.messages.at(-2);
          // The signed thinking block goes back first, verbatim (the agent model refuses otherwise).
          expect(assistant.content[0]).toMatchObject({ type: 'thinking', signature: expect.any(String) });
          expect(assistant.content[0].signature).not.toBe('');
          expect(assistant.content.at(-1).type).toBe('tool_use');
          expect(follow.messages.at(-1).content).toEqual([{ type: 'tool_result', tool_use_id: assistant.content.at(-1).id, content: 'got HI THERE' }]);
        }
      });
    }
  }

  it('the requests of one loop share a keep-alive connection (a new one per step cost a connect each)', async () => {
    const { path } = toolsFile(`cat > /dev/null; printf 'tick'`);
    const before = { requests: requests().length, connections: ctx.gateway.stats().connections };
    const result = await gatechat(['--no-save', '-m', 'agent-3', '--tools', path, '--allow', 'shout', 'call shout {}']);
    expect(result.code, result.stderr).toBe(0);
    expect(requests().length - before.requests).toBe(4);
    expect(ctx.gateway.stats().connections - before.connections).toBe(1);
  });

  it('a script without --allow denies the call: nothing runs, one stderr line names --allow, the model is told', async () => {
    for (const api of ['chat', 'messages'] as const) {
      const { path, ranMarker } = toolsFile();
      const before = requests().length;
      const result = await gatechat(['--no-save', '-m', 'agent', '--api', api, '--tools', path, 'call shout {"text":"x"}']);
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(ranMarker)).toBe(false);
      expect(result.stderr).toMatch(/denied shout .*--allow 'shout'/);
      expect(result.stdout).toBe('results: The user declined to run this tool call.\n');
      const follow = requests().slice(before)[1].body as Record<string, any>;
      if (api === 'messages') expect(follow.messages.at(-1).content[0].is_error).toBe(true);
    }
  });

  it('--allow globs: * and ? match the model-facing name; others are denied', async () => {
    const { path, ranMarker } = toolsFile();
    const ok = await gatechat(['--no-save', '-m', 'agent', '--tools', path, '--allow', 'sh?u*', 'call shout {"text":"a"}']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(ranMarker)).toBe(true);
    const other = toolsFile();
    const denied = await gatechat(['--no-save', '-m', 'agent', '--tools', other.path, '--allow', 'fs__*', 'call shout {"text":"a"}']);
    expect(existsSync(other.ranMarker)).toBe(false);
    expect(denied.stderr).toMatch(/denied shout/);
  });

  it('a non-zero exit is an error result with the status and the stderr tail', async () => {
    const { path } = toolsFile(`echo partial; echo 'it broke' >&2; exit 3`);
    const before = requests().length;
    const result = await gatechat(['--no-save', '-m', 'agent', '--api', 'messages', '--tools', path, '--allow', '*', 'call shout {}']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/✗ exit status 3/);
    const block = (requests().slice(before)[1].body as Record<string, any>).messages.at(-1).content[0];
    expect(block).toMatchObject({ type: 'tool_result', is_error: true, content: 'exit status 3\nit broke' });
  });

  it('tool processes never get the gateway key', async () => {
    const { path } = toolsFile(`printf '%s' "key=[$GATECHAT_API_KEY] home=[$HOME]"`);
    const result = await gatechat(['--no-save', '-m', 'agent', '--tools', path, '--allow', '*', 'call shout {}'], { GATECHAT_API_KEY: 'sk-secret-123' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^results: key=\[\] home=\[.+\]\n$/);
  });

  it('--tool-timeout: a call running too long becomes an error result; --tool-output-limit cuts with a note', async () => {
    const slow = toolsFile('sleep 30');
    const started = Date.now();
    const timed = await gatechat(['--no-save', '-m', 'agent', '--tools', slow.path, '--allow', '*', '--tool-timeout', '0.5', 'call shout {}']);
    expect(timed.code, timed.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(timed.stderr).toMatch(/✗ timed out after 0\.5 s/);
    expect(timed.stdout).toBe('results: timed out after 0.5 s\n');

    const big = toolsFile(`head -c 5000 /dev/zero | tr '\\0' x`);
    const before = requests().length;
    const cut = await gatechat(['--no-save', '-m', 'agent', '--tools', big.path, '--allow', '*', '--tool-output-limit', '1K', 'call shout {}']);
    expect(cut.code, cut.stderr).toBe(0);
    const content = (requests().slice(before)[1].body as Record<string, any>).messages.at(-1).content as string;
    expect(content.startsWith('x'.repeat(1024) + '\n')).toBe(true);
    expect(content).toContain('cut at 1024 bytes of 5000 (--tool-output-limit)');
  });

  it('agent-N loops N tool steps; --max-steps counts model requests', async () => {
    const { path } = toolsFile(`printf step`);
    const ok = await gatechat(['--no-save', '-m', 'agent-3', '--json', '--tools', path, '--allow', '*', '--max-steps', '4', 'call shout {}']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).steps).toHaveLength(4);
    const stopped = await gatechat(['--no-save', '-m', 'agent-3', '--tools', path, '--allow', '*', '--max-steps', '3', 'call shout {}']);
    expect(stopped.code).toBe(10);
  });

  it('--max-steps: at the limit one line and exit 10', async () => {
    const { path } = toolsFile(`printf ok`);
    // agent calls a tool whenever a user turn is last; with --max-steps 1 the first answer's call is the limit.
    const result = await gatechat(['--no-save', '-m', 'agent', '--tools', path, '--allow', '*', '--max-steps', '1', 'call shout {}']);
    expect(result.code).toBe(10);
    expect(result.stderr).toMatch(/stopped after 1 model request \(--max-steps 1\)/);
  });

  it('--json adds steps and keeps text the final answer; --jsonl writes tool_result events', async () => {
    const { path } = toolsFile();
    const json = await gatechat(['--no-save', '-m', 'agent', '--json', '--tools', path, '--allow', '*', 'call shout {"text":"j"}']);
    expect(json.code, json.stderr).toBe(0);
    const object = JSON.parse(json.stdout);
    expect(object.text).toBe('results: got J');
    expect(object.steps).toHaveLength(2);
    expect(object.steps[0].calls[0].name).toBe('shout');
    expect(object.steps[0].results[0]).toMatchObject({ name: 'shout', ok: true, denied: false, bytes: 5 });

    const jsonl = await gatechat(['--no-save', '-m', 'agent', '--jsonl', '--tools', path, 'call shout {"text":"j"}']);
    const events = jsonl.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const toolResult = events.find((e) => e.type === 'tool_result');
    expect(toolResult).toMatchObject({ type: 'tool_result', name: 'shout', ok: false, denied: true, bytes: expect.any(Number), duration_ms: expect.any(Number) });
    expect(typeof toolResult.id).toBe('string');
  });

  it('results are saved: -c continues with every call and its result, and history show shows them', async () => {
    const { path } = toolsFile();
    const first = await gatechat(['-m', 'agent', '--api', 'messages', '--tools', path, '--allow', '*', 'call shout {"text":"saved"}']);
    expect(first.code, first.stderr).toBe(0);
    const before = requests().length;
    const next = await gatechat(['-c', '-m', 'echo', 'and now?']);
    expect(next.code, next.stderr).toBe(0);
    const body = requests().slice(before)[0].body as Record<string, any>;
    const results = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === 'tool_result');
    expect(results).toEqual([expect.objectContaining({ content: 'got SAVED' })]);
    // Outside the loop the reasoning stays out.
    expect(JSON.stringify(body)).not.toContain('"thinking"');
    const shown = await runCli(['history', 'show'], { env: ctx.user.env() });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('[tool call shout {"text":"saved"}]');
    expect(shown.stdout).toMatch(/\[tool result shout ✓\]\n  got SAVED\n/);
  });

  it('a definition without x-command behaves as before: the call is shown and the turn ends', async () => {
    const path = join(ctx.user.home, 'plain-tools.json');
    writeFileSync(path, JSON.stringify([{ type: 'function', function: { name: 'plain', parameters: { type: 'object' } } }]));
    const result = await gatechat(['--no-save', '-m', 'agent', '--tools', path, 'call plain {}']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ type: 'tool_call', name: 'plain', arguments: {} });
    void readFileSync;
  });

  it('batch never prompts: only --allow runs a call, the rest are denied per line; results reach the answers', async () => {
    const { path, ranMarker } = toolsFile();
    const input = join(ctx.user.home, 'tool-batch.jsonl');
    writeFileSync(input, [JSON.stringify({ id: 'a', prompt: 'call shout {"text":"one"}' }), JSON.stringify({ id: 'b', prompt: 'call shout {"text":"two"}' })].join('\n') + '\n');
    const denied = await gatechat(['batch', input, '-m', 'agent', '--tools', path]);
    expect(denied.code, denied.stderr).toBe(0);
    expect(existsSync(ranMarker)).toBe(false);
    expect(denied.stderr).toMatch(/\[a\] .*denied shout .*--allow/);
    const lines = denied.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.text).sort()).toEqual(['results: The user declined to run this tool call.', 'results: The user declined to run this tool call.']);

    const allowed = await gatechat(['batch', input, '-m', 'agent', '--api', 'messages', '--tools', path, '--allow', 'shout']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(existsSync(ranMarker)).toBe(true);
    const texts = allowed.stdout.trim().split('\n').map((l) => JSON.parse(l).text).sort();
    expect(texts).toEqual(['results: got ONE', 'results: got TWO']);
  });

  it('Ctrl-C cancels a running command tool (SIGTERM to its process group) and ends the turn: exit 130, no process left', async () => {
    const pidFile = join(ctx.user.home, `tool-pid-${Date.now()}`);
    const { path } = toolsFile(`sh -c 'echo $$ > ${pidFile}; exec sleep 30'`);
    const started = Date.now();
    const result = await runCli(['--base-url', ctx.base, '--no-save', '-m', 'agent', '--tools', path, '--allow', '*', 'call shout {}'], {
      env: ctx.user.env(),
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '') {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(result.code, result.stderr).toBe(130);
    expect(Date.now() - started).toBeLessThan(10_000);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    await expect.poll(() => isRunning(pid), { timeout: 5000 }).toBe(false);
  });
});
