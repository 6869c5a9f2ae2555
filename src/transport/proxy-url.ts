import { UsageError } from '../exit-codes.js';

// Which proxy, if any, carries a request (SPEC §14). Pure: the environment is passed in, so the whole
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY matrix is tested without a process.

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** `proxy.corp:3128` means `http://proxy.corp:3128`; only http: and https: proxies; no path. */
export function normalizeProxyUrl(raw: string, option: string): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(SCHEME.test(text) ? text : `http://${text}`);
  } catch {
    throw new UsageError(`${option}: not a valid proxy URL: ${JSON.stringify(withoutPassword(text))}`, 'expected e.g. http://proxy.example.com:3128');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${option}: only http:// and https:// proxies are supported, got ${url.protocol}//`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new UsageError(`${option}: a proxy URL has no path, got ${JSON.stringify(proxyLabel(url.href))}`);
  }
  return url.href.replace(/\/$/, '');
}

/** The proxy as messages name it: scheme, host and port, never its user:password. */
export function proxyLabel(proxyUrl: string): string {
  try {
    const url = new URL(proxyUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return withoutPassword(proxyUrl);
  }
}

/** For `config list`: the user stays visible, the password does not. */
export function maskProxyPassword(proxyUrl: string): string {
  try {
    const url = new URL(proxyUrl);
    if (url.password) url.password = '***';
    return url.href.replace(/\/$/, '');
  } catch {
    return withoutPassword(proxyUrl);
  }
}

/**
 * SPEC §20: what a proxy URL gives away if echoed — the password as written and decoded, `user:password`
 * and its base64, which undici sends as `Proxy-Authorization: Basic …`. Empty without a password.
 */
export function proxyCredentials(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(SCHEME.test(raw.trim()) ? raw.trim() : `http://${raw.trim()}`);
  } catch {
    return [];
  }
  if (!url.password) return [];
  const user = safeDecode(url.username);
  const password = safeDecode(url.password);
  const pair = `${user}:${password}`;
  return [url.password, password, pair, Buffer.from(pair).toString('base64')];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function withoutPassword(text: string): string {
  return text.replace(/\/\/[^/@]*@/, '//***@');
}

export type ProxyEnv = Record<string, string | undefined>;

/** `https_proxy` before `HTTPS_PROXY`, as curl and undici read them; an empty value counts as unset. */
function envValue(env: ProxyEnv, name: string): string | undefined {
  return env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;
}

/**
 * NO_PROXY: comma/space separated hosts; `example.com` and `.example.com` also match every subdomain;
 * `host:port` matches that port only; `*` alone turns proxies off. IPv6 literals are written in brackets.
 */
export function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const entries = noProxy.split(/[,\s]+/).filter(Boolean);
  if (entries.includes('*')) return true;
  const host = target.hostname.toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return entries.some((entry) => {
    // `[::1]:8080`, `host:8080`, `host`; a bare IPv6 literal (`::1`) has no port.
    const bareIpv6 = (entry.match(/:/g)?.length ?? 0) > 1 && !entry.startsWith('[');
    const withPort = bareIpv6 ? null : /^(.+):(\d+)$/.exec(entry);
    if (withPort && Number(withPort[2]) !== port) return false;
    const name = bareIpv6 ? `[${entry.toLowerCase()}]` : (withPort ? withPort[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    return host === name || host.endsWith(`.${name}`);
  });
}

/**
 * The proxy URL for one request target, or null to go direct. An explicit proxy (`--proxy`, the `proxy`
 * key) replaces HTTPS_PROXY/HTTP_PROXY; NO_PROXY is honoured either way. `null` for `explicit` means never.
 */
export function proxyFor(target: URL, explicit: string | null | undefined, env: ProxyEnv): string | null {
  if (explicit === null) return null;
  const noProxy = envValue(env, 'no_proxy');
  if (bypassesProxy(target, noProxy)) return null;
  if (explicit !== undefined) return explicit;
  const fromEnv = target.protocol === 'https:' ? (envValue(env, 'https_proxy') ?? envValue(env, 'http_proxy')) : envValue(env, 'http_proxy');
  if (fromEnv === undefined) return null;
  const name = target.protocol === 'https:' && envValue(env, 'https_proxy') ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  return normalizeProxyUrl(fromEnv, name);
}
