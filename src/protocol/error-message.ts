// Untangling the message strings that gateways build around an upstream's error. claude-code-router,
// for one, sends `Error from provider(p,m: 500): {"error":{…}}Error: Error from provider(…)\n    at …`:
// the upstream's JSON body inside the string, then a JavaScript stack trace whose first line repeats
// the message. SPEC §4 wants one line holding the innermost message, without frames or file paths.

/** A stack frame line: `    at fn (/path/file.js:1:2)`, `    at async fn (…)`, `    at node:internal/…`. */
const STACK_FRAME = /\r?\n[ \t]*at [^\n]*/;
/** The header of a stack trace (`Error: `, `TypeError: `) glued to the end of a message. */
const STACK_HEADER = /(?:[A-Z][A-Za-z]*)?Error: /g;
/**
 * A source location left in the text: `(/tmp/x/cli.js:582:7451)`, `file:///a/b.js:3:1`,
 * `node:internal/x:9:5`. Line and column both: a URL with a port is not a location.
 */
const LOCATION = /\(?(?:file:\/\/)?(?:[A-Za-z]:)?[/\\][^\s()]*:\d+:\d+\)?|\(?node:internal\/[^\s()]*\)?/g;

/**
 * The message without its stack trace: frames cut, and the trace's header (`Error: <same message>`)
 * dropped when it only repeats what came before it.
 */
export function withoutStackTrace(text: string): string {
  const frame = STACK_FRAME.exec(text);
  let message = frame === null ? text : text.slice(0, frame.index);
  for (const header of message.matchAll(STACK_HEADER)) {
    const before = message.slice(0, header.index).trim();
    const after = message.slice(header.index + header[0].length).trim();
    if (before !== '' && before === after) {
      message = before;
      break;
    }
  }
  return message.replace(LOCATION, '').trim();
}

export interface EmbeddedJson {
  /** The text before the JSON, e.g. `Error from provider(dev,x: 500):`. */
  before: string;
  value: unknown;
}

/** End index (exclusive) of the balanced `{…}` starting at `start`, strings and escapes respected. */
function balancedEnd(text: string, start: number): number | null {
  let depth = 0;
  let inString = false;
  // Stryker disable next-line EqualityOperator: equivalent — text[text.length] is undefined and matches no branch
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i + 1;
  }
  return null;
}

/** The first JSON object inside a message string, if there is one that parses. */
export function embeddedJson(text: string): EmbeddedJson | null {
  // Stryker disable next-line StringLiteral: equivalent — starting anywhere but at a brace, a slice that parses is only white space before the same object (its `before` trimmed alike)
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    // Unclosed: give up rather than rescan the rest for each later brace (quadratic on a hostile message).
    if (end === null) return null;
    try {
      return { before: text.slice(0, start).trim(), value: JSON.parse(text.slice(start, end)) as unknown };
    } catch {
      // Braces in prose ("{name} is required"): try the next one.
    }
  }
  return null;
}

/** One line of at most `max` characters. */
export function singleLine(text: string, max: number): string {
  // Stryker disable next-line Regex: equivalent — \s* on either side already takes in a run of line breaks
  const line = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
