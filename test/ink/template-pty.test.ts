// /template in the real chat UI (tmux): Tab completes template names, the command applies the front
// matter to the conversation and puts the filled body in the input box; Enter sends it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

describeInTerminal('/template in chat', () => {
  const ctx = useGatewayAndTerminals({ userPer: 'file' });
  beforeAll(() => {
    const dir = join(ctx.user.configDir, 'templates');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'review.md'), '---\nmodel: echo\nsystem: You review {{lang}} code.\ntemperature: 0.3\n---\nReview my {{lang}} snippet:{{input}}\n');
    writeFileSync(join(dir, 'rewrite.md'), 'Rewrite it.\n');
  });

  it('Tab completes the name; /template NAME key=value applies model, system, temperature and drafts the body', async () => {
    const s = ctx.launch(['chat', '--base-url', ctx.base, '-m', 'lorem-3', '--no-save']);
    await s.waitForText('Ask anything');
    s.type('/template re');
    await s.waitForText('/template re');
    s.keys('Tab');
    await s.waitForText('review  rewrite');
    s.type('v');
    s.keys('Tab');
    await s.waitForText('/template review ');
    s.type('lang=go');
    s.keys('Enter');
    await s.waitForText('template review: model echo');
    await s.waitForText('Review my go snippet:');
    s.type(' x := 1');
    s.keys('Enter');
    const deadline = Date.now() + 5000;
    while (ctx.gateway.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const body = ctx.gateway.requests.at(-1)!.body as Record<string, any>;
    expect(body.model).toBe('echo');
    expect(body.temperature).toBe(0.3);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You review go code.' },
      { role: 'user', content: 'Review my go snippet: x := 1' },
    ]);
    // The answer is done (its footer is up) before the next line is typed.
    await s.waitForText('echo · chat · temp 0.3 · in ');
    s.submit('/template review');
    await s.waitForText('template review: missing parameter lang (/template review lang=…)');
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });

  it('gatechat template list on a terminal: each name with its description and parameters', async () => {
    const s = ctx.launch(['template', 'list']);
    expect(await s.waitForExit()).toBe(0);
    const screen = s.screen();
    expect(screen).toContain('review   -P lang  stdin → {{input}}');
    expect(screen).toContain('rewrite');
  });
});
