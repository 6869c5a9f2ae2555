import type { Connection } from './http.js';
import { proxyCredentials, type ProxyEnv } from './proxy-url.js';
import { basicCredentialForms, echoedForms } from './secret-forms.js';

export const ANTHROPIC_VERSION = '2023-06-01';
const REDACTED = '[redacted]';

/** Headers that carry credentials by definition; never logged, never sent to another origin. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'proxy-authorization', 'cookie']);
/**
 * Words that make a -H header a secret when one is a whole dash/underscore-separated part of its name
 * (`x-api-key`, `x-auth-token`), so letters inside another word (`x-portkey-provider`) do not count.
 */
const SECRET_WORDS = new Set([
  'auth', 'authorization', 'key', 'apikey', 'token', 'secret', 'cookie', 'session', 'password', 'passwd', 'signature', 'credential', 'credentials',
]);

/** A credential header, or a name with a secret word as one of its parts: masked in output and errors. */
function isSecretHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(lower) || lower.split(/[-_]/).some((part) => SECRET_WORDS.has(part));
}

/**
 * SPEC §5.2. User `-H` headers come last and replace a default of the same name
 * (case-insensitively), so `-H "User-Agent: x"` or `-H "anthropic-version: …"` work.
 */
export function buildHeaders(conn: Connection, version: string): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  const set = (name: string, value: string): void => {
    merged.set(name.toLowerCase(), [name, value]);
  };
  set('Content-Type', 'application/json');
  set('User-Agent', `gatechat/${version}`);
  // undici.request does not decompress; body.ts does (gzip, and deflate/br should a gateway send them anyway).
  set('Accept-Encoding', 'gzip');
  if (conn.apiKey) {
    switch (conn.auth) {
      case 'bearer':
        set('Authorization', `Bearer ${conn.apiKey}`);
        break;
      case 'x-api-key':
        set('x-api-key', conn.apiKey);
        set('anthropic-version', ANTHROPIC_VERSION);
        break;
      default: {
        const never: never = conn.auth;
        throw new Error(`unknown auth mode ${String(never)}`);
      }
    }
  }
  for (const [name, value] of Object.entries(conn.headers)) set(name, value);
  return Object.fromEntries(merged.values());
}

/** Header names that must not follow a redirect to another origin: built-in credentials and all of `-H`. */
export function credentialHeaderNames(conn: Connection): Set<string> {
  const names = new Set(CREDENTIAL_HEADERS);
  for (const name of Object.keys(conn.headers)) names.add(name.toLowerCase());
  return names;
}

function isSecretHeader(name: string, value: string, secrets: string[]): boolean {
  if (isSecretHeaderName(name)) return true;
  return secrets.some((s) => s !== '' && value.includes(s));
}

/** For --verbose: credentials masked, the auth scheme kept so the mode is still visible. */
export function redactHeaders(headers: Record<string, string>, secrets: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isSecretHeader(name, value, secrets)) {
      out[name] = value;
      continue;
    }
    const scheme = /^(Bearer|Basic|Token)\s+/i.exec(value);
    out[name] = scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
  }
  return out;
}

/** Masks every occurrence of each secret (keys echoed back in error messages, URLs, logs). */
export function redactSecrets(text: string, secrets: string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is masked whole.
  for (const secret of [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** The proxy URLs a request may go through: the explicit one, else every proxy variable set. */
function proxyUrls(conn: Connection, env: ProxyEnv): string[] {
  if (conn.proxy === null) return [];
  if (conn.proxy !== undefined) return [conn.proxy];
  return ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'].map((name) => env[name]).filter((value): value is string => Boolean(value));
}

/**
 * The strings --verbose, error messages and saved files must never show (SPEC §20): the key,
 * secret-looking -H values (a Basic value's `user:password` too), proxy credentials — each also in the
 * escaped forms a gateway echoing it writes (secret-forms.ts).
 */
export function secretsOf(conn: Connection, env: ProxyEnv = process.env): string[] {
  const secrets: string[] = [];
  if (conn.apiKey) secrets.push(conn.apiKey);
  for (const [name, value] of Object.entries(conn.headers)) {
    if (isSecretHeaderName(name)) {
      secrets.push(value);
      // "Bearer xyz": the token alone may be echoed too.
      const token = /^\S+\s+(\S+)$/.exec(value.trim());
      if (token) secrets.push(token[1]);
      secrets.push(...basicCredentialForms(value));
    }
  }
  for (const proxy of proxyUrls(conn, env)) secrets.push(...proxyCredentials(proxy));
  return [...new Set(secrets.flatMap(echoedForms))];
}
