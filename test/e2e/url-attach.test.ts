// SPEC §18 URLs: `-a https://…` fetches the page through gatechat's own transport (proxy, timeouts) and
// attaches it — an HTML page as its article text in Markdown, PDFs and images as files, other text as
// text — or fails in one line, exit 2, nothing sent. Pages come from a node:http server on 127.0.0.1.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useGatewayAndUser } from '../helpers/dev-gateway.js';
import { startTestProxy, type TestProxy } from '../helpers/proxy.js';

const ctx = useGatewayAndUser();

const NEWS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Harbour bridge reopens | The Daily Example</title>
<script>window.analytics = { track: function () { console.log("TRACKING-SCRIPT-TEXT"); } };</script>
<style>.nav { color: red } /* STYLE-TEXT */</style></head>
<body>
<header><nav class="nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World NAV-LINK-TEXT</a></li><li><a href="/sport">Sport</a></li></ul></nav></header>
<div class="cookie-banner">We use cookies COOKIE-BANNER-TEXT. <button>Accept</button></div>
<main><article>
<h1>Harbour bridge reopens after two years of repairs</h1>
<p class="byline">By A. Reporter</p>
<p>The harbour bridge reopened to traffic on Monday morning after a two-year restoration that replaced every one of its 4,000 rivets. ARTICLE-FIRST-PARAGRAPH.</p>
<p>Engineers said the new deck should last another century, and that the <a href="/works">works</a> finished three weeks ahead of schedule, which the city council called a rare piece of good news for local infrastructure.</p>
<h2>What changes for commuters</h2>
<p>Buses return to their old routes from Tuesday. Cyclists get a separated lane on the eastern side for the first time, a change campaigners had sought for over a decade. ARTICLE-LAST-PARAGRAPH.</p>
<ul><li>Speed limit: 40 km/h</li><li>Tolls: none</li></ul>
</article>
<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/x">Celebrity chef opens restaurant SIDEBAR-TEXT</a></li></ul></aside></main>
<footer><p>© 2026 The Daily Example FOOTER-TEXT · <a href="/privacy">Privacy</a></p></footer>
<script src="/app.js"></script>
</body></html>`;

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(56, 1)]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

let site: Server;
let origin = '';
beforeAll(async () => {
  site = createServer((req, res) => {
    switch (req.url) {
      case '/news/bridge':
        return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(NEWS_PAGE);
      case '/old-link':
        return void res.writeHead(301, { location: '/news/bridge' }).end();
      case '/notes.txt':
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('plain notes\n');
      case '/paper':
        return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      case '/chart':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      case '/blob':
        return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0, 1, 2, 3]));
      case '/huge':
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 9; i++) res.write(Buffer.alloc(1024 * 1024, 'a'));
        return void res.end();
      case '/latin1':
        return void res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      default:
        return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><title>Not here</title></html>');
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

function gatechat(args: string[], env: Record<string, string> = {}) {
  return runCli(['--base-url', ctx.base, '-m', 'echo', ...args], { env: { ...ctx.user.env(), ...env } });
}
const body = (i = -1) => ctx.gateway.requests.at(i)!.body as Record<string, any>;

describe('-a URL', () => {
  it('a news page reaches the model as its article text, headed by the URL: no navigation, scripts, cookie banner, sidebar or footer', async () => {
    const url = `${origin}/news/bridge`;
    const result = await gatechat(['-a', url, 'summarize']);
    expect(result.code, result.stderr).toBe(0);
    const content = body().messages[0].content as string;
    expect(content.startsWith(`${url}\n\`\`\`\n`)).toBe(true);
    expect(content.endsWith('\n```\n\nsummarize')).toBe(true);
    for (const kept of ['Harbour bridge reopens', 'ARTICLE-FIRST-PARAGRAPH', 'ARTICLE-LAST-PARAGRAPH', '## What changes for commuters', 'Speed limit: 40 km/h']) {
      expect(content).toContain(kept);
    }
    for (const dropped of ['TRACKING-SCRIPT-TEXT', 'STYLE-TEXT', 'NAV-LINK-TEXT', 'COOKIE-BANNER-TEXT', 'SIDEBAR-TEXT', 'FOOTER-TEXT', '<p>', '<article']) {
      expect(content).not.toContain(dropped);
    }
    // Markdown, with links made absolute.
    expect(content).toContain(`[works](${origin}/works)`);
  });

  it('follows a redirect; plain text is attached as text; a charset is honoured', async () => {
    const moved = await gatechat(['-a', `${origin}/old-link`, 'q']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(body().messages[0].content).toContain('ARTICLE-FIRST-PARAGRAPH');
    const text = await gatechat(['-a', `${origin}/notes.txt`, '-a', `${origin}/latin1`, 'q']);
    expect(text.code, text.stderr).toBe(0);
    expect(body().messages[0].content).toBe(`${origin}/notes.txt\n\`\`\`\nplain notes\n\`\`\`\n\n${origin}/latin1\n\`\`\`\ncafé\n\`\`\`\n\nq`);
  });

  it('PDFs and images are attached as files', async () => {
    const result = await gatechat(['-a', `${origin}/paper`, '-a', `${origin}/chart`, 'q']);
    expect(result.code, result.stderr).toBe(0);
    expect(body().messages[0].content).toEqual([
      { type: 'file', file: { filename: 'paper', file_data: `data:application/pdf;base64,${PDF.toString('base64')}` } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      { type: 'text', text: 'q' },
    ]);
  });

  it('errors are one line, exit 2, nothing sent', async () => {
    const cases: Array<[string, RegExp]> = [
      [`${origin}/missing`, /^gatechat: cannot attach http:\/\/127\.0\.0\.1:\d+\/missing: HTTP 404 Not Found\n$/],
      [`${origin}/huge`, /^gatechat: cannot attach http:\/\/127\.0\.0\.1:\d+\/huge: the page is over the 8 MiB limit\n$/],
      [`${origin}/blob`, /^gatechat: cannot attach http:\/\/127\.0\.0\.1:\d+\/blob: it is not an HTML page, UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF\n$/],
      ['http://127.0.0.1:1/page', /^gatechat: cannot attach http:\/\/127\.0\.0\.1:1\/page: cannot connect to 127\.0\.0\.1:1: connection refused\n$/],
    ];
    for (const [url, message] of cases) {
      const result = await gatechat(['-a', url, '--retries', '0', 'q']);
      expect(result.code, `${url}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(ctx.gateway.requests).toHaveLength(0);
  });

  it('goes through the same proxy as the gateway requests', async () => {
    const proxy: TestProxy = await startTestProxy();
    try {
      const url = `${origin}/notes.txt`;
      const result = await gatechat(['--proxy', proxy.url, '-a', url, 'q']);
      expect(result.code, result.stderr).toBe(0);
      expect(proxy.seen.map((s) => s.target)).toEqual([url, `${ctx.base}/chat/completions`]);
      // The page request carries no credentials of the gateway's.
      expect(proxy.seen[0]!.headers.authorization).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('never sends the API key or -H headers to the page', async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const spy = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(spy.address() as AddressInfo).port}/`;
      const result = await gatechat(['-H', 'X-Secret: s3cret', '-a', url, 'q'], { GATECHAT_API_KEY: 'sk-test-key-1234' });
      expect(result.code, result.stderr).toBe(0);
      expect(seen).toHaveLength(1);
      expect(JSON.stringify(seen[0])).not.toMatch(/sk-test-key-1234|s3cret/);
    } finally {
      await new Promise<void>((resolve) => spy.close(() => resolve()));
    }
  });

  it('batch: -a URL is fetched once for every line; a line\'s own "attach" URL is a file name, never fetched', async () => {
    const input = join(ctx.user.home, 'lines.jsonl');
    writeFileSync(input, `${JSON.stringify({ id: 'a', prompt: 'one' })}\n${JSON.stringify({ id: 'b', prompt: 'two' })}\n`);
    const result = await runCli(['batch', input, '--base-url', ctx.base, '-m', 'echo', '-a', `${origin}/notes.txt`], { env: ctx.user.env(), cwd: ctx.user.home });
    expect(result.code, result.stderr).toBe(0);
    expect(ctx.gateway.requests.map((r) => (r.body as Record<string, any>).messages[0].content).sort()).toEqual([
      `${origin}/notes.txt\n\`\`\`\nplain notes\n\`\`\`\n\none`,
      `${origin}/notes.txt\n\`\`\`\nplain notes\n\`\`\`\n\ntwo`,
    ]);
    ctx.gateway.requests.length = 0;
    writeFileSync(input, `${JSON.stringify({ id: 'c', prompt: 'q', attach: [`${origin}/notes.txt`] })}\n`);
    const line = await runCli(['batch', input, '--base-url', ctx.base, '-m', 'echo', '--attach-root', '/'], { env: ctx.user.env(), cwd: ctx.user.home });
    expect(line.code).toBe(2);
    expect(line.stderr).toContain(`cannot attach ${origin}/notes.txt: no such file or directory`);
    expect(ctx.gateway.requests).toHaveLength(0);
  });
});
