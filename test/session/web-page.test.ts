// readablePage (SPEC §18): an HTML page → the Markdown worth sending, driven directly with page text.
import { describe, expect, it } from 'vitest';
import { readablePage } from '../../src/session/web-page.js';

const URL = 'http://127.0.0.1:9/docs/page.html';
const LONG = 'Words enough for Readability to take this paragraph as the article it is looking for, and then some more.';

describe('readablePage', () => {
  it('writes the article as Markdown: atx headings, fenced code, - bullets, * emphasis', () => {
    const html = `<html><head><title>Rich</title></head><body><article><h2>Sub heading</h2><p>Some <em>emphasis</em>. ${LONG}</p><ul><li>one</li><li>two</li></ul><pre><code>let x = 1;\nlet y = 2;</code></pre><p>${LONG}</p></article></body></html>`;
    expect(readablePage(html, URL)).toBe(
      `# Rich\n\n## Sub heading\n\nSome *emphasis*. ${LONG}\n\n-   one\n-   two\n\n\`\`\`\nlet x = 1;\nlet y = 2;\n\`\`\`\n\n${LONG}`,
    );
  });

  it('makes links absolute against the URL but keeps in-page anchors as they are', () => {
    const html = `<html><head><title>Links</title></head><body><article><p>${LONG}</p><p><a href="#part">jump</a>, <a href="other.html">other</a>, <a href="/top">top</a>.</p></article></body></html>`;
    expect(readablePage(html, URL)).toBe(`# Links\n\n${LONG}\n\n[jump](#part), [other](http://127.0.0.1:9/docs/other.html), [top](http://127.0.0.1:9/top).`);
  });

  it("heads it with the article's own title (og:title) before the document's", () => {
    const html = `<html><head><title>Doc Title</title><meta property="og:title" content="OG Title"></head><body><article><p>${LONG}</p></article></body></html>`;
    expect(readablePage(html, URL)).toBe(`# OG Title\n\n${LONG}`);
  });

  it('with no article, keeps the whole body minus what is not content, under the trimmed document title', () => {
    const html =
      '<html><head><title>  Gallery  </title></head><body><nav><img src="nav.png"></nav><header><img src="h.png"></header><img src="a.png"><footer><img src="f.png"></footer><aside><img src="s.png"></aside><form><img src="x.png"></form><template><img src="t.png"></template></body></html>';
    expect(readablePage(html, URL)).toBe('# Gallery\n\n![](a.png)');
    expect(readablePage('<html><body><img src="a.png"></body></html>', URL)).toBe('![](a.png)');
  });

  it('a page that is empty, bare text or a fragment without <html> is read as a body, not thrown at', () => {
    expect(readablePage('', URL)).toBe('');
    expect(readablePage('just text', URL)).toBe('just text');
    expect(readablePage('<p>Hello <b>world</b></p>', URL)).toBe('Hello **world**');
    expect(readablePage('<!-- note --><p>Hi there</p>', URL)).toBe('Hi there');
  });

  it('trims what turndown leaves around the text (non-breaking spaces)', () => {
    expect(readablePage('<html><body><p>&nbsp;&nbsp;text&nbsp;</p></body></html>', URL)).toBe('text');
  });
});
