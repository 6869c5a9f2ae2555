// -a https://… (SPEC §18): a page fetched over real loopback HTTP through gatechat's own transport.
import { describe, expect, it } from 'vitest';
import { fetchUrlAttachment, isUrlInput, MAX_PAGE_BYTES } from '../../src/session/url-input.js';
import { useLoopbackServers } from '../transport/loopback.js';

const serve = useLoopbackServers();
const web = { timeouts: { connectMs: 2000, headersMs: 5000, idleMs: 5000 }, retries: 0 };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

const PAGES: Record<string, [number, string, Buffer | string]> = {
  '/article': [200, 'text/html; charset=utf-8', '<html><head><title>T</title></head><body><nav>menu</nav><article><h1>Title</h1><p>First paragraph of the article, long enough to be read as one by Readability, which wants some text.</p><p>See <a href="/next">next</a>.</p></article></body></html>'],
  '/sniffed': [200, 'application/octet-stream', '<!-- c --><!DOCTYPE html><html><body><p>Sniffed as HTML without a type.</p></body></html>'],
  '/empty-page': [200, 'text/html', '<html><body><script>x()</script></body></html>'],
  '/plain': [200, 'text/plain', 'just text é'],
  '/latin1': [200, 'text/plain; charset="ISO-8859-1"', Buffer.from([0x63, 0x61, 0x66, 0xe9])],
  '/bad-charset': [200, 'text/html; charset=nope', '<html><body>x</body></html>'],
  '/png': [200, 'application/octet-stream', PNG],
  '/pdf': [200, 'application/pdf', '%PDF-1.4 tiny'],
  '/binary': [200, 'application/zip', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff])],
  '/json': [200, 'application/json', '{"a":1}'],
  '/missing': [404, 'text/html', 'nope'],
  '/teapot': [499, 'text/plain', 'odd'],
};

async function site() {
  return serve((req, res) => {
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      for (let i = 0; i <= MAX_PAGE_BYTES / chunk.length; i++) res.write(chunk);
      res.end();
      return;
    }
    const [status, type, body] = PAGES[req.url ?? ''] ?? [500, 'text/plain', ''];
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
}

describe('isUrlInput', () => {
  it('http and https only, any case', () => {
    expect(['https://x', 'HTTP://x', 'ftp://x', 'x https://y', 'https:/x'].map(isUrlInput)).toEqual([true, true, false, false, false]);
  });
});

describe('fetchUrlAttachment', () => {
  it('an HTML page as its article in Markdown under its title, links made absolute; no key, no -H', async () => {
    const s = await site();
    const url = `${s.origin}/article`;
    const page = await fetchUrlAttachment(url, web);
    expect(page).toMatchObject({ kind: 'text', path: url });
    expect(page.kind === 'text' && page.text).toMatch(/^# (T|Title)\n\n/);
    expect(page.kind === 'text' && page.text).toContain(`[next](${s.origin}/next)`);
    expect(page.kind === 'text' && page.text).not.toContain('menu');
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
    expect(s.requests[0]!.headers.accept).toMatch(/^text\/html,/);
    const sniffed = await fetchUrlAttachment(`${s.origin}/sniffed`, web);
    expect(sniffed.kind === 'text' && sniffed.text).toContain('Sniffed as HTML without a type.');
  });

  it('images and PDFs as files, text in its charset, JSON as text', async () => {
    const s = await site();
    expect(await fetchUrlAttachment(`${s.origin}/png`, web)).toEqual({ kind: 'image', path: `${s.origin}/png`, mime: 'image/png', data: PNG.toString('base64'), bytes: PNG.length });
    expect(await fetchUrlAttachment(`${s.origin}/pdf`, web)).toMatchObject({ kind: 'pdf', bytes: 13 });
    expect(await fetchUrlAttachment(`${s.origin}/plain`, web)).toEqual({ kind: 'text', path: `${s.origin}/plain`, text: 'just text é' });
    expect(await fetchUrlAttachment(`${s.origin}/latin1`, web)).toMatchObject({ text: 'café' });
    expect(await fetchUrlAttachment(`${s.origin}/json`, web)).toMatchObject({ kind: 'text', text: '{"a":1}' });
  });

  it('every failure is one usage error naming the URL', async () => {
    const s = await site();
    const refusal = (path: string) => fetchUrlAttachment(`${s.origin}${path}`, web).then(() => 'attached', (e: Error & { exitCode?: number }) => `${e.exitCode} ${e.message}`);
    expect(await refusal('/missing')).toBe(`2 cannot attach ${s.origin}/missing: HTTP 404 Not Found`);
    expect(await refusal('/teapot')).toBe(`2 cannot attach ${s.origin}/teapot: HTTP 499`);
    expect(await refusal('/empty-page')).toBe(`2 cannot attach ${s.origin}/empty-page: the page has no readable text`);
    expect(await refusal('/bad-charset')).toBe(`2 cannot attach ${s.origin}/bad-charset: unknown charset nope`);
    expect(await refusal('/binary')).toBe(`2 cannot attach ${s.origin}/binary: it is not an HTML page, UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF`);
    expect(await refusal('/huge')).toBe(`2 cannot attach ${s.origin}/huge: the page is over the 8 MiB limit`);
    await expect(fetchUrlAttachment('https://', web)).rejects.toThrow('cannot attach https://: not a valid URL');
    await s.close();
    expect(await refusal('/plain')).toMatch(new RegExp(`^2 cannot attach ${s.origin}/plain: `));
    expect(await refusal('/plain')).not.toContain('the gateway');
  });
});
