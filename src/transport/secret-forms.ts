// The forms a secret takes when a gateway or a proxy echoes it back (SPEC §20 "Secrets"): a JSON encoder
// writes `/`, `"`, `\` and non-ASCII characters differently (PHP: `\/`, Python: `\u00e9`, Go: `\u003c`), a
// JSON document quoted inside a message escapes them twice, and a Basic credential travels as base64.
// Redaction looks for every one of them, not only the string as it was given.

interface JsonStyle {
  slash: boolean;
  nonAscii: boolean;
  html: boolean;
  upperHex: boolean;
}

const STYLES: JsonStyle[] = [];
for (const slash of [false, true]) {
  for (const nonAscii of [false, true]) {
    for (const html of [false, true]) {
      for (const upperHex of [false, true]) STYLES.push({ slash, nonAscii, html, upperHex });
    }
  }
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function hex4(code: number, upper: boolean): string {
  const digits = code.toString(16).padStart(4, '0');
  return `\\u${upper ? digits.toUpperCase() : digits}`;
}

/** The inside of a JSON string literal holding `text`, as an encoder of this style writes it. */
function jsonEscape(text: string, style: JsonStyle): string {
  let out = '';
  // By UTF-16 unit: characters outside the BMP are escaped as surrogate pairs, as JSON does.
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const code = text.charCodeAt(i);
    if (SHORT_ESCAPES[char] !== undefined) out += SHORT_ESCAPES[char];
    else if (code < 0x20 || (style.nonAscii && code > 0x7e) || (style.html && (char === '<' || char === '>' || char === '&'))) out += hex4(code, style.upperHex);
    else if (style.slash && char === '/') out += '\\/';
    else out += char;
  }
  return out;
}

/**
 * `secret` and every JSON-escaped form of it, once and twice escaped. A plain ASCII key without
 * special characters has only itself: the set stays small where nothing is to be escaped.
 */
export function echoedForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  for (const style of STYLES) {
    const once = jsonEscape(secret, style);
    forms.add(once);
    forms.add(jsonEscape(once, style));
  }
  return [...forms];
}

/** `Basic dXNlcjpwYXNz` → its base64 token, the `user:password` it carries and the password. */
export function basicCredentialForms(value: string): string[] {
  const token = /^Basic\s+(\S+)$/i.exec(value.trim())?.[1];
  if (!token) return [];
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return [token];
  return [token, decoded, decoded.slice(colon + 1)];
}
