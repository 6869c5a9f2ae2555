// -a https://… (SPEC §18): how a fetched page is typed — its Content-Type, its first bytes, its charset —
// over real loopback HTTP through gatechat's own transport.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { fetchUrlAttachment, MAX_PAGE_BYTES } from '../../src/session/url-input.js';
import { useLoopbackServers } from '../transport/loopback.js';

const serve = useLoopbackServers();
const web = { timeouts: { connectMs: 2000, headersMs: 5000, idleMs: 5000 }, retries: 0 };

/** Serves `body` with `type` as its Content-Type (none when undefined) and fetches it. */
async function fetchAs(type: string | undefined, body: string | Buffer) {
  const s = await serve((_req, res) => {
    res.writeHead(200, type === undefined ? {} : { 'content-type': type });
    res.end(body);
  });
  const url = `${s.origin}/page`;
  const result = await fetchUrlAttachment(url, web).then(
    (a) => (a.kind === 'text' ? a.text : `${a.kind} attachment`),
    (e: Error & { exitCode?: number }) => `${e.exitCode} ${e.message.replace(url, 'URL')}`,
  );
  return { result, requests: s.requests };
}
const text = async (type: string | undefined, body: string | Buffer) => (await fetchAs(type, body)).result;

const PAGE = '<html><head><title>N</title></head><body><p>Hi <b>there</b></p></body></html>';
const NOT_ANY = '2 cannot attach URL: it is not an HTML page, UTF-8 text, a PNG, JPEG, GIF or WebP image, or a PDF';

describe('HTML by its Content-Type', () => {
  it('text/html in any case, with parameters; XHTML', async () => {
    const { result, requests } = await fetchAs('TEXT/HTML ; Charset=UTF-8', '<p>Hello <b>world</b></p>');
    expect(result).toBe('Hello **world**');
    expect(requests[0]!.method).toBe('GET');
    expect(await text('application/xhtml+xml', PAGE)).toBe('# N\n\nHi **there**');
  });

  it('another declared type is never read as HTML, whatever its first bytes', async () => {
    expect(await text('text/markdown', PAGE)).toBe(PAGE);
  });
});

describe('HTML by its first bytes, where the type says nothing (none, octet-stream, text/plain)', () => {
  const sniffedPage = '  \n<!-- one --> \n <!--two-->\n\n<!DOCTYPE  html><html><head><title>N</title></head><body><p>Hi <b>there</b></p></body></html>';
  const bare = '<html lang="en"><head><title>N</title></head><body><p>Hi <b>there</b></p></body></html>';

  it('no Content-Type at all', async () => {
    expect(await text(undefined, PAGE)).toBe('# N\n\nHi **there**');
  });

  it('application/octet-stream and text/plain: blank space, comments, then a doctype or <html>', async () => {
    for (const type of ['application/octet-stream', 'text/plain']) {
      expect(await text(type, sniffedPage)).toBe('# N\n\nHi **there**');
      expect(await text(type, bare)).toBe('# N\n\nHi **there**');
    }
  });

  it('only at the start: text that mentions <html> later is text', async () => {
    expect(await text('text/plain', 'see <html> here')).toBe('see <html> here');
    expect(await text('text/plain', '<htmlx> not a tag we know')).toBe('<htmlx> not a tag we know');
  });

  it('an HTML page with bytes that are not UTF-8 is read with replacement characters, not refused', async () => {
    expect(await text('text/html', Buffer.concat([Buffer.from('<html><body><p>caf'), Buffer.from([0xe9]), Buffer.from('</p></body></html>')]))).toBe('caf\uFFFD');
  });
});

describe('text and its charset', () => {
  it('the charset parameter however it is spaced and quoted', async () => {
    expect(await text('text/plain;  charset = "ISO-8859-1"', Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe('café');
  });

  it('bytes that are not valid in the declared charset are refused, not replaced', async () => {
    expect(await text('text/plain; charset=utf-16le', 'abc')).toBe(NOT_ANY);
  });

  it('a NUL byte makes it no text, whatever charset is declared', async () => {
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'text/plain; charset=UTF8', 'text/plain; charset=iso-8859-1']) {
      expect(await text(type, 'a\0b')).toBe(NOT_ANY);
    }
  });

  it('a page of exactly the limit is read', async () => {
    const page = await text('text/plain', Buffer.alloc(MAX_PAGE_BYTES, 0x61));
    expect(page.length).toBe(MAX_PAGE_BYTES);
  });
});

describe('failures', () => {
  it('a page over the limit is refused and its connection closed, not left streaming', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const s = await serve((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(256 * 1024, 0x61);
      const pump = () => {
        while (res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', closed);
      pump();
    });
    await expect(fetchUrlAttachment(`${s.origin}/endless`, web)).rejects.toThrow(`cannot attach ${s.origin}/endless: the page is over the 8 MiB limit`);
    const waited = await Promise.race([gone.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))]);
    expect(waited).toBe('closed');
  });

  it('a site that cannot be reached or sends us elsewhere: what went wrong, said of the site', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(302, { location: 'ftp://files.test/x' });
      res.end();
    });
    const port = new URL(s.origin).port;
    expect(await fetchUrlAttachment(`${s.origin}/x`, web).then(() => 'attached', (e: Error) => e.message)).toBe(
      `cannot attach ${s.origin}/x: the site redirected to an unsupported address: ftp:`,
    );
    await s.close();
    expect(await fetchUrlAttachment(`${s.origin}/x`, web).then(() => 'attached', (e: Error) => e.message)).toBe(
      `cannot attach ${s.origin}/x: cannot connect to 127.0.0.1:${port}: connection refused`,
    );
  });
});
