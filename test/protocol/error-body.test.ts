// The gateway's own words out of any error body or stream error (SPEC §4): each case is a shape a real
// gateway, proxy or upstream sends, and what the one error line must then say.
import { describe, expect, it } from 'vitest';
import { describeErrorBody, describeStreamError } from '../../src/protocol/error-body.js';

const none = { code: null, type: null, param: null };
const message = (body: string, contentType?: string): string => describeErrorBody(body, contentType).message;
const json = (value: unknown): string => JSON.stringify(value);

describe('plain-text and JSON-scalar error bodies', () => {
  it('the first non-blank line, trimmed; cut with an ellipsis above 200 characters, never at 200', () => {
    expect(message('\n   upstream connect error   \nreset reason: overflow')).toBe('upstream connect error');
    const exactly = 'x'.repeat(200);
    expect(message(exactly)).toBe(exactly);
    expect(message(`${exactly}y`)).toBe(`${'x'.repeat(199)}…`);
  });

  it('a body of only white space is no message, whatever its content type says', () => {
    expect(describeErrorBody('  \n', 'text/html')).toEqual({ message: '', ...none });
  });

  it('a JSON string body is its first line; other JSON that is not an error object is shown as JSON', () => {
    expect(describeErrorBody(json('Rate limited\nretry later'), undefined)).toEqual({ message: 'Rate limited', ...none });
    expect(describeErrorBody('[1,2]', undefined)).toEqual({ message: '[1,2]', ...none });
    expect(describeErrorBody('null', undefined)).toEqual({ message: 'null', ...none });
    expect(describeErrorBody(json({ foo: 1 }), 'application/json')).toEqual({ message: '{"foo":1}', ...none });
  });
});

describe('error envelopes', () => {
  it('FastAPI validation errors: the messages of the list joined, entries without one left out', () => {
    const detail = [{ msg: 'field required', loc: ['body', 'model'] }, 'plain words', { msg: '' }, 42, { loc: [] }];
    expect(message(json({ detail }))).toBe('field required; plain words');
  });

  it('an empty detail list says nothing: the next place a message can be is used', () => {
    expect(message(json({ detail: [], error: 'quota exceeded' }))).toBe('quota exceeded');
  });

  it('an empty code is no code', () => {
    expect(describeErrorBody(json({ error: { message: 'm', code: '' } }), undefined).code).toBeNull();
  });

  it('OpenRouter metadata.raw: an object without a message, or no raw at all, leaves the message alone', () => {
    expect(message(json({ error: { message: 'Provider returned error', metadata: { raw: { foo: 1 } } } }))).toBe('Provider returned error');
    expect(message(json({ error: { message: 'Provider returned error', metadata: { provider_name: 'X' } } }))).toBe('Provider returned error');
  });

  it('OpenRouter metadata.raw as a string: its JSON error read for the message, other JSON kept as it is', () => {
    const raw = json({ error: { message: 'upstream says no' } });
    expect(message(json({ error: { message: 'Provider returned error', metadata: { raw } } }))).toBe('Provider returned error: upstream says no');
    expect(message(json({ error: { message: 'Provider returned error', metadata: { raw: '{"foo":1}' } } }))).toBe('Provider returned error: {"foo":1}');
  });
});

describe('an upstream error inside the message string', () => {
  it('the wrapper’s words and the inner message, its trailing colon not doubled', () => {
    const text = `Error from provider(dev,x: 500): ${json({ error: { message: 'model overloaded' } })}`;
    expect(message(json({ error: { message: text } }))).toBe('Error from provider(dev,x: 500): model overloaded');
  });

  it('a colon after the wrapper’s words is dropped however it is spaced', () => {
    expect(message(json({ error: { message: `upstream : ${json({ error: { message: 'm' } })}` } }))).toBe('upstream: m');
  });

  it('a JSON object in the message that is no error envelope leaves the message whole', () => {
    expect(message(json({ error: { message: 'oops {"foo":1}' } }))).toBe('oops {"foo":1}');
  });

  it('the wrapper’s words are kept while both fit in 300 characters, dropped when they would not', () => {
    const inner = 'i'.repeat(100);
    const wrapped = (beforeLength: number) => json({ error: { message: `${'w'.repeat(beforeLength)}: ${json({ error: { message: inner } })}` } });
    // "before: inner" is before + 2 + inner characters long.
    expect(message(wrapped(198))).toBe(`${'w'.repeat(198)}: ${inner}`);
    expect(message(wrapped(199))).toBe(inner);
  });

  it('unwrapped four levels deep, no further', () => {
    let text = 'the bottom';
    for (let level = 6; level >= 1; level--) text = `L${level} ${json({ error: { message: text } })}`;
    // Each level's JSON sits inside the string of the level above it.
    expect(message(json({ error: { message: text } }))).toBe(`L1: L2: L3: L4: L5 ${json({ error: { message: `L6 ${json({ error: { message: 'the bottom' } })}` } })}`);
  });
});

describe('HTML error pages', () => {
  it('entities decoded and white space folded in the title', () => {
    const page = '<html><head><title>A&nbsp;&lt;b&gt;   &quot;q&quot;\n &#39;s&apos; &amp; more</title></head></html>';
    expect(message(page, 'text/html')).toBe(`HTML error page: A <b> "q" 's' & more`);
  });

  it('a blank title gives way to the first heading; attributes on either are fine', () => {
    expect(message('<html><title>  </title><h1>Bad   Gateway</h1></html>')).toBe('HTML error page: Bad Gateway');
    expect(message('<html><title lang="en">Title A</title><h1>Heading B</h1></html>')).toBe('HTML error page: Title A');
    expect(message('<html><body><p>Sorry.</p><h2 class="err">Bad gateway here</h2><p>details follow</p></body></html>')).toBe('HTML error page: Bad gateway here');
    expect(message('<html><body><h1>Bad<br>Gateway</h1></body></html>')).toBe('HTML error page: Bad Gateway');
  });

  it('without title or heading: the page’s text, scripts left out, words on both sides of one kept apart', () => {
    expect(message('<html><body>Gateway<script type="text/javascript">var secret = 1</script>timeout</body></html>')).toBe('HTML error page: Gateway timeout');
    expect(message('<html><body></body></html>', 'text/html')).toBe('HTML error page');
  });

  it('recognised by its content type, or by how the body starts (after white space, any doctype spacing, a bare heading)', () => {
    expect(message('Service Unavailable <b>try later</b>', 'text/html')).toBe('HTML error page: Service Unavailable try later');
    expect(message('\n  <html><title>Oops</title></html>')).toBe('HTML error page: Oops');
    expect(message('<!DOCTYPE  html>\n<html><head><title>T</title></head></html>')).toBe('HTML error page: T');
    expect(message('<h1>Down for maintenance</h1>')).toBe('HTML error page: Down for maintenance');
  });

  it('plain text that mentions a tag is not a page', () => {
    expect(message('upstream said <html> was unexpected')).toBe('upstream said <html> was unexpected');
    expect(message('upstream connect error', 'text/plain')).toBe('upstream connect error');
  });
});

describe('describeStreamError', () => {
  it('a string payload is its first non-blank line; an empty one is "stream error"', () => {
    expect(describeStreamError('\n  \nupstream failed\nmore')).toEqual({ code: null, message: 'upstream failed', status: null });
    expect(describeStreamError('\n  \n')).toEqual({ code: null, message: 'stream error', status: null });
  });

  it('no payload at all', () => {
    expect(describeStreamError(null)).toEqual({ code: null, message: 'stream error (no message)', status: null });
  });

  it('an error object without a message: its code before its type, status_code before status', () => {
    expect(describeStreamError({ error: { code: 'overloaded_error', type: 'overloaded', status_code: 503, status: 'x' } })).toEqual({
      code: 'overloaded_error',
      message: 'stream error (no message)',
      status: 503,
    });
  });
});
