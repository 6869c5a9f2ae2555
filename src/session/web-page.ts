import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

// SPEC §18: an HTML page → the text worth sending. Mozilla Readability (Firefox's Reader View) finds
// the article over a linkedom DOM; turndown writes it as Markdown. No hand-written HTML parsing.
// Loaded only when a URL is attached: these libraries are most of this chunk.

/**
 * linkedom builds a document only under an <html> root: from '' or bare text it builds none (and
 * Readability throws), from a fragment an empty body. Such a page is read as the body it is.
 */
function parsePage(html: string) {
  const parsed = parseHTML(html);
  return parsed.document.documentElement?.localName === 'html' ? parsed : parseHTML(`<html><head></head><body>${html}</body></html>`);
}

/** Markdown of the page's article, with its title as a heading; links made absolute against `url`. */
export function readablePage(html: string, url: string): string {
  const { document } = parsePage(html);
  // Readability resolves relative links against these; linkedom knows no URL of its own.
  Object.defineProperty(document, 'baseURI', { value: url });
  Object.defineProperty(document, 'documentURI', { value: url });
  // Stryker disable next-line OptionalChaining,StringLiteral: equivalent — linkedom's title is always a string ('' without a <title>)
  const title = document.title?.trim() ?? '';
  const article = new Readability(document as unknown as Document).parse();
  // Stryker disable next-line StringLiteral: equivalent — without an article the fallback below replaces the content
  let content = article?.content ?? '';
  if (!article?.textContent?.trim()) {
    const { document: whole } = parsePage(html);
    // What is not content. (Here, not a module constant: a mutant of it could not be told apart once loaded.)
    const notContent = 'script, style, noscript, template, nav, header, footer, aside, form, iframe, svg';
    for (const element of whole.querySelectorAll(notContent)) element.remove();
    // Stryker disable next-line OptionalChaining,StringLiteral: equivalent — linkedom's body getter makes an empty <body> where there is none
    content = whole.body?.innerHTML ?? '';
  }
  const turndown = new TurndownService({
    // Stryker disable next-line StringLiteral: equivalent — turndown writes setext headings only for 'setext' (its default when the option is left out); any other value is atx
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
  });
  // Stryker disable next-line ArrayDeclaration,StringLiteral: equivalent — kept should Readability change: it drops script, noscript and style itself, and the fallback removes them with NOT_CONTENT
  turndown.remove(['script', 'style', 'noscript']);
  const markdown = turndown.turndown(content).trim();
  // Stryker disable next-line MethodExpression,OptionalChaining: equivalent — Readability's title is always a string, trimmed from <title>, meta or JSON-LD alike
  const heading = article?.title?.trim() || title;
  return heading ? `# ${heading}\n\n${markdown}` : markdown;
}
