import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

// SPEC §18: an HTML page → the text worth sending. Mozilla Readability (Firefox's Reader View) finds
// the article over a linkedom DOM; turndown writes it as Markdown. No hand-written HTML parsing.
// Loaded only when a URL is attached: these libraries are most of this chunk.

/** What is dropped when Readability finds no article and the whole body is kept instead. */
const NOT_CONTENT = 'script, style, noscript, template, nav, header, footer, aside, form, iframe, svg';

/** Markdown of the page's article, with its title as a heading; links made absolute against `url`. */
export function readablePage(html: string, url: string): string {
  const { document } = parseHTML(html);
  // Readability resolves relative links against these; linkedom knows no URL of its own.
  Object.defineProperty(document, 'baseURI', { value: url });
  Object.defineProperty(document, 'documentURI', { value: url });
  const title = document.title?.trim() ?? '';
  const article = new Readability(document as unknown as Document).parse();
  let content = article?.content ?? '';
  if (!article?.textContent?.trim()) {
    const { document: whole } = parseHTML(html);
    for (const element of whole.querySelectorAll(NOT_CONTENT)) element.remove();
    content = whole.body?.innerHTML ?? '';
  }
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  turndown.remove(['script', 'style', 'noscript']);
  const markdown = turndown.turndown(content).trim();
  const heading = article?.title?.trim() || title;
  return heading ? `# ${heading}\n\n${markdown}` : markdown;
}
