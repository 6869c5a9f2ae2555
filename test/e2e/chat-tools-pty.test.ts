// Tool calls in the interactive chat (SPEC §15): each waits in the live region for y / a / n / Esc; nothing
// runs before the key; `a` allows the tool for the rest of the chat. A real terminal (tmux).
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('tool approval in the chat', () => {
  const ctx = useGatewayAndTerminals();

  function chat(name: string) {
    const dir = join(ctx.user.home, `runs-${name}`);
    const tools = join(ctx.user.home, `chat-tools-${name}.json`);
    writeFileSync(
      tools,
      JSON.stringify([{ type: 'function', function: { name: 'shout', parameters: { type: 'object' } }, 'x-command': `mkdir -p ${dir}; touch ${dir}/$$; printf 'ran it'` }]),
    );
    const runs = () => (existsSync(dir) ? readdirSync(dir).length : 0);
    rmSync(dir, { recursive: true, force: true });
    const s = ctx.launch(['chat', '--base-url', ctx.base, '--no-save', '-m', 'agent', '--tools', tools]);
    return { s, runs };
  }

  it('y runs the call once; n denies it and the model is told', async () => {
    const { s, runs } = chat('yn');
    await s.waitForText('Ask anything');
    s.submit('call shout {"text":"hi"}');
    await s.waitForText('y run once', 15_000);
    expect(s.screen()).toContain('⚙ shout (command) {"text":"hi"}');
    expect(runs()).toBe(0);
    s.type('y');
    await s.waitForText('results: ran it', 15_000);
    expect(runs()).toBe(1);

    s.submit('call shout {"text":"again"}');
    await s.waitFor((screen) => screen.includes('y run once') && screen.includes('again'), 'the second question', 15_000);
    s.type('n');
    await s.waitForText('results: The user declined to run this tool call.', 15_000);
    expect(runs()).toBe(1);
  });

  it('a allows the tool for the rest of the chat: the next call runs without asking', async () => {
    const { s, runs } = chat('a');
    await s.waitForText('Ask anything');
    s.submit('call shout {}');
    await s.waitForText('y run once', 15_000);
    s.type('a');
    await s.waitForText('results: ran it', 15_000);
    s.submit('call shout {"second":true}');
    await s.waitFor(() => runs() === 2, 'the second run', 15_000);
    expect(s.screen()).not.toContain('y run once');
  });

  it('Esc cancels the turn; nothing runs', async () => {
    const { s, runs } = chat('esc');
    await s.waitForText('Ask anything');
    s.submit('call shout {}');
    await s.waitForText('y run once', 15_000);
    s.keys('Escape');
    await s.waitFor((screen) => !screen.includes('y run once'), 'the question to go', 15_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(runs()).toBe(0);
    expect(s.screen()).not.toContain('results:');
  });

  it('/tools lists the tools and whether each asks; /tools off stops sending them, /tools on resumes', async () => {
    const { s, runs } = chat('list');
    await s.waitForText('Ask anything');
    s.submit('/tools');
    await s.waitForText('shout (command) · asks', 15_000);
    s.submit('/tools off');
    await s.waitForText('tools: not sent until /tools on', 15_000);
    const before = ctx.gateway.requests.length;
    s.submit('call shout {}');
    await s.waitFor(() => ctx.gateway.requests.length > before, 'the request', 15_000);
    await s.waitFor((screen) => /out \d+ tokens/.test(screen), 'the end of the answer', 15_000);
    expect((ctx.gateway.requests.at(-1)!.body as Record<string, unknown>).tools).toBeUndefined();
    expect(s.screen()).not.toContain('y run once');
    expect(runs()).toBe(0);
    s.submit('/tools on');
    await s.waitForText('tools: sent again', 15_000);
    s.submit('call shout {}');
    await s.waitForText('y run once', 15_000);
  });
});
