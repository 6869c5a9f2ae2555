import { describe, expect, it } from 'vitest';
import { bypassesProxy, maskProxyPassword, normalizeProxyUrl, proxyCredentials, proxyFor, proxyLabel } from '../../src/transport/proxy-url.js';
import { UsageError } from '../../src/exit-codes.js';

describe('normalizeProxyUrl', () => {
  it('a URL without a scheme means http://; http and https kept; a trailing slash dropped', () => {
    expect(normalizeProxyUrl('proxy.corp:3128', '--proxy')).toBe('http://proxy.corp:3128');
    expect(normalizeProxyUrl(' http://proxy.corp:3128/ ', '--proxy')).toBe('http://proxy.corp:3128');
    expect(normalizeProxyUrl('https://proxy.corp', '--proxy')).toBe('https://proxy.corp');
    expect(normalizeProxyUrl('user:pw@proxy.corp:8080', 'proxy')).toBe('http://user:pw@proxy.corp:8080');
  });

  it('refuses other schemes, paths and garbage, naming the option and never the password', () => {
    for (const bad of ['socks5://p:1080', 'ftp://p', 'http://p:3128/some/path', 'http://', 'http://u:hunter22@p:99999']) {
      let error: unknown;
      try {
        normalizeProxyUrl(bad, '--proxy');
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(/^--proxy: /);
      expect((error as Error).message).not.toContain('hunter22');
    }
  });

  it('labels and listings never show the password', () => {
    expect(proxyLabel('http://u:hunter22@p.corp:3128')).toBe('http://p.corp:3128');
    expect(maskProxyPassword('http://u:hunter22@p.corp:3128')).toBe('http://u:***@p.corp:3128');
    expect(maskProxyPassword('http://p.corp:3128')).toBe('http://p.corp:3128');
  });
});

describe('NO_PROXY', () => {
  const url = (u: string) => new URL(u);
  it('hosts, domains with or without a leading dot or *., ports, *, IPv6', () => {
    expect(bypassesProxy(url('https://api.example.com/v1'), 'example.com')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com/v1'), '.example.com')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com/v1'), '*.example.com')).toBe(true);
    expect(bypassesProxy(url('https://example.com/v1'), 'other.org, example.com')).toBe(true);
    expect(bypassesProxy(url('https://notexample.com/v1'), 'example.com')).toBe(false);
    expect(bypassesProxy(url('https://example.com.evil.net/v1'), 'example.com')).toBe(false);
    expect(bypassesProxy(url('http://127.0.0.1:8080/v1'), '127.0.0.1')).toBe(true);
    expect(bypassesProxy(url('http://127.0.0.1:8080/v1'), '127.0.0.1:8080')).toBe(true);
    expect(bypassesProxy(url('http://127.0.0.1:8081/v1'), '127.0.0.1:8080')).toBe(false);
    expect(bypassesProxy(url('https://EXAMPLE.com/v1'), 'Example.COM:443')).toBe(true);
    expect(bypassesProxy(url('https://anything.at.all/v1'), '*')).toBe(true);
    expect(bypassesProxy(url('http://[::1]:8080/v1'), '::1')).toBe(true);
    expect(bypassesProxy(url('http://[::1]:8080/v1'), '[::1]:8080')).toBe(true);
    expect(bypassesProxy(url('http://[::1]:8080/v1'), '')).toBe(false);
    expect(bypassesProxy(url('http://[::1]:8080/v1'), undefined)).toBe(false);
  });
});

describe('proxyFor', () => {
  const https = new URL('https://gw.example.com/v1');
  const http = new URL('http://gw.example.com/v1');
  it('https targets: HTTPS_PROXY, else HTTP_PROXY; http targets: HTTP_PROXY only; lower case first', () => {
    expect(proxyFor(https, undefined, { HTTPS_PROXY: 'p1:1', HTTP_PROXY: 'p2:2' })).toBe('http://p1:1');
    expect(proxyFor(https, undefined, { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:2' })).toBe('http://low:1');
    expect(proxyFor(https, undefined, { HTTP_PROXY: 'p2:2' })).toBe('http://p2:2');
    expect(proxyFor(http, undefined, { HTTPS_PROXY: 'p1:1' })).toBeNull();
    expect(proxyFor(http, undefined, { http_proxy: 'p2:2' })).toBe('http://p2:2');
    expect(proxyFor(https, undefined, { HTTPS_PROXY: '' })).toBeNull();
  });

  it('an explicit proxy replaces the environment; NO_PROXY applies to it; null means never', () => {
    expect(proxyFor(http, 'http://flag:3', { HTTP_PROXY: 'p2:2' })).toBe('http://flag:3');
    expect(proxyFor(http, 'http://flag:3', { no_proxy: 'example.com' })).toBeNull();
    expect(proxyFor(http, 'http://flag:3', { NO_PROXY: 'other.org' })).toBe('http://flag:3');
    expect(proxyFor(http, null, { HTTP_PROXY: 'p2:2' })).toBeNull();
  });

  it('a malformed proxy variable is a usage error naming it', () => {
    expect(() => proxyFor(https, undefined, { HTTPS_PROXY: 'ftp://x' })).toThrow(/^HTTPS_PROXY: /);
  });
});

describe('proxy edges', () => {
  it('a refused proxy URL hides its password; a query or fragment is a path too', () => {
    expect(() => normalizeProxyUrl('http://al:pw@[bad', '--proxy')).toThrow('--proxy: not a valid proxy URL: "http://***@[bad"');
    expect(() => normalizeProxyUrl('http://proxy:3128/?x=1', '--proxy')).toThrow(/^--proxy: a proxy URL has no path/);
    expect(() => normalizeProxyUrl('http://proxy:3128#frag', '--proxy')).toThrow(/^--proxy: a proxy URL has no path/);
    expect(normalizeProxyUrl('  proxy:3128/ ', '--proxy')).toBe('http://proxy:3128');
  });

  it('proxyCredentials: trims, needs a password, and keeps what does not decode', () => {
    const basic = (pair: string) => Buffer.from(pair).toString('base64');
    expect(proxyCredentials('  http://al:pw-1@proxy:1  ')).toEqual(['pw-1', 'pw-1', 'al:pw-1', basic('al:pw-1')]);
    expect(proxyCredentials('al:p%2Fw@proxy:1')).toEqual(['p%2Fw', 'p/w', 'al:p/w', basic('al:p/w')]);
    expect(proxyCredentials('http://al@proxy:1')).toEqual([]);
    expect(proxyCredentials('http://[bad')).toEqual([]);
    expect(proxyCredentials('http://al:%E0%A4%A@proxy:1')).toEqual(['%E0%A4%A', '%E0%A4%A', 'al:%E0%A4%A', basic('al:%E0%A4%A')]);
  });

  it('NO_PROXY: separators in a row, default ports per scheme, upper-case entries, a port only at the end', () => {
    const https = new URL('https://api.example.com/v1');
    const http = new URL('http://api.example.com/v1');
    expect(bypassesProxy(https, ' ,, other.org ,  API.Example.COM')).toBe(true);
    expect(bypassesProxy(https, 'example.com:443')).toBe(true);
    expect(bypassesProxy(http, 'example.com:443')).toBe(false);
    expect(bypassesProxy(http, 'example.com:80')).toBe(true);
    expect(bypassesProxy(https, 'example.com:443x')).toBe(false);
    expect(bypassesProxy(new URL('https://api.example.com:8443/'), 'example.com:8443')).toBe(true);
  });

  it('the variable an environment proxy is refused under, and an explicit proxy beside NO_PROXY', () => {
    const https = new URL('https://api.example.com/v1');
    expect(() => proxyFor(https, undefined, { https_proxy: 'ftp://p:1' })).toThrow(/^HTTPS_PROXY: /);
    expect(() => proxyFor(https, undefined, { http_proxy: 'ftp://p:1' })).toThrow(/^HTTP_PROXY: /);
    expect(() => proxyFor(new URL('http://api.example.com/'), undefined, { https_proxy: 'http://s:1', http_proxy: 'ftp://p:1' })).toThrow(/^HTTP_PROXY: /);
    expect(proxyFor(https, 'http://explicit:1', { no_proxy: 'other.org' })).toBe('http://explicit:1');
    expect(proxyFor(https, null, { https_proxy: 'http://p:1' })).toBeNull();
  });
});
