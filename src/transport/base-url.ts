import { UsageError } from '../exit-codes.js';

/**
 * SPEC §5.1: an empty or "/" path gets /v1 appended; any other path is used as given; trailing
 * slashes are dropped; only http: and https:. Returns the base without a trailing slash.
 */
export function normalizeBaseUrl(raw: string, optionName = '--base-url'): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${optionName}: not a valid URL: ${JSON.stringify(raw)}`, 'expected e.g. https://gateway.example.com/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${optionName}: only http: and https: URLs are supported, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    // Credentials in the URL would leak into logs and error messages; keys belong in api-key.
    throw new UsageError(`${optionName}: user:password in the URL is not supported; use: gatechat config set api-key`);
  }
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path === '' ? '/v1' : path;
  return url.toString().replace(/\/+$/, '');
}

/** The paths gatechat appends to the base URL itself. */
const ENDPOINT_PATHS = ['/chat/completions', '/messages', '/models'] as const;

/**
 * A base URL copied with its endpoint (`https://gw/v1/chat/completions`) makes every request go to
 * `…/chat/completions/chat/completions`. When one fails, this is what to say instead of a generic hint.
 */
export function endpointInBaseUrlHint(baseUrl: string): string | undefined {
  const path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const endpoint = ENDPOINT_PATHS.find((candidate) => path.endsWith(candidate));
  if (endpoint === undefined) return undefined;
  const base = new URL(baseUrl);
  base.pathname = path.slice(0, -endpoint.length);
  return `the base URL ends in ${endpoint}, which gatechat adds itself: use --base-url ${normalizeBaseUrl(base.toString())}`;
}

/** Loopback hosts may receive a key over plain http without a warning. */
export function isLoopbackHost(hostname: string): boolean {
  // Stryker disable next-line Regex: equivalent — a URL's hostname holds brackets only around an IPv6 literal
  const host = hostname.replace(/^\[|\]$/g, '');
  // The URL parser has already turned IPv4 literals into dotted quads, so a name like
  // 127.0.0.1.example.com (which can resolve anywhere) does not match.
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
