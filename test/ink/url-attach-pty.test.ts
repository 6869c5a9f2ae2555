// /attach https://… in the real chat UI (tmux): the page is fetched, shown as pending, and its article
// text goes with the next message — even one typed before the page arrived; a page that fails is one
// notice and nothing is sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInTerminal, useGatewayAndTerminals } from '../helpers/tmux.js';

let site: Server;
let origin = '';
beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/story') {
      // Slow on purpose: the message typed right after /attach must still wait for the page.
      return void setTimeout(() => res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><title>Story</title></head><body><nav>MENU-TEXT</nav><article><h1>Story</h1><p>The article body that the model must see, long enough to count as one.</p></article><footer>FOOTER-TEXT</footer></body></html>'), 800);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

describeInTerminal('/attach URL in chat', () => {
  const ctx = useGatewayAndTerminals();

  it('attaches the article of a page to the next message; a missing page is a notice', async () => {
    const s = ctx.launch(['chat', '--base-url', ctx.base, '-m', 'echo', '--no-save']);
    await s.waitForText('Ask anything');
    s.submit(`/attach ${origin}/gone`);
    await s.waitForText(`cannot attach ${origin}/gone: HTTP 404 Not Found`);
    // Typed as a person would: the command shown, Enter, the box empty again, then the message. Sent
    // in one burst, both lines would arrive in one read, which is a paste: one two-line input.
    s.type(`/attach ${origin}/story`);
    await s.waitForText(`/attach ${origin}/story`);
    s.keys('Enter');
    await s.waitFor((now) => !now.includes('/story'), 'the /attach command to be taken');
    s.submit('what happened?');
    // On a timeout the screen is in the error: what the chat did with the message instead.
    await s.waitFor(() => ctx.gateway.requests.length > 0, 'the message to be sent', 10_000);
    expect(ctx.gateway.requests).toHaveLength(1);
    const content = (ctx.gateway.requests[0]!.body as { messages: Array<{ content: string }> }).messages[0]!.content;
    expect(content).toContain('The article body that the model must see');
    expect(content).not.toContain('MENU-TEXT');
    expect(content).not.toContain('FOOTER-TEXT');
    expect(content.endsWith('what happened?')).toBe(true);
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(0);
  });
});
