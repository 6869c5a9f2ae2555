// Small rules with sharp edges: base URLs (SPEC §5.1), proxy URLs and NO_PROXY (SPEC §14), the waits a
// gateway asks for (SPEC §7), and the secrets a connection carries (SPEC §20).
import { describe, expect, it } from 'vitest';
import { endpointInBaseUrlHint, isLoopbackHost, normalizeBaseUrl } from '../../src/transport/base-url.js';
import { bypassesProxy, normalizeProxyUrl, proxyFor } from '../../src/transport/proxy-url.js';
import { requestedWaitMs, shouldRetry } from '../../src/transport/retry.js';
import { secretsOf } from '../../src/transport/headers.js';
import { connection } from './loopback.js';

describe('base URLs', () => {
  it('white space around it is ignored; every trailing slash dropped', () => {
    expect(normalizeBaseUrl('  http://gw.example/api//  ')).toBe('http://gw.example/api');
    expect(normalizeBaseUrl('http://gw.example//')).toBe('http://gw.example/v1');
  });

  it('the endpoint hint sees through trailing slashes', () => {
    expect(endpointInBaseUrlHint('http://gw.example/v1/chat/completions//')).toBe(
      'the base URL ends in /chat/completions, which gatechat adds itself: use --base-url http://gw.example/v1',
    );
  });

  it('an IPv6 loopback is loopback with or without its brackets', () => {
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('[::2]')).toBe(false);
  });
});

describe('proxy URLs', () => {
  it('a path, even a bare one, is refused; "/" is fine; the option is named', () => {
    expect(normalizeProxyUrl(' proxy.corp:3128/ ', '--proxy')).toBe('http://proxy.corp:3128');
    expect(() => normalizeProxyUrl('http://proxy.corp:3128/x', '--proxy')).toThrow('--proxy: a proxy URL has no path, got "http://proxy.corp:3128"');
    expect(() => normalizeProxyUrl('http://proxy.corp:3128?a=1', '--proxy')).toThrow('a proxy URL has no path');
    expect(() => normalizeProxyUrl('http://[bad', '--proxy')).toThrow('--proxy: not a valid proxy URL: "http://[bad"');
  });

  it('NO_PROXY entries split on commas and runs of spaces; names compared without case; ports must match', () => {
    const target = new URL('http://API.Example.com:8080/v1');
    expect(bypassesProxy(target, 'other.org,  ,example.com')).toBe(true);
    expect(bypassesProxy(target, 'other.org  EXAMPLE.COM')).toBe(true);
    expect(bypassesProxy(target, 'example.com:9090')).toBe(false);
    expect(bypassesProxy(target, 'example.com:8080')).toBe(true);
    expect(bypassesProxy(new URL('http://x.example.com:8080/'), 'x:8080')).toBe(false);
  });

  it('null means never a proxy, whatever NO_PROXY and the environment say', () => {
    expect(proxyFor(new URL('http://gw.example/v1'), null, { HTTP_PROXY: 'http://p:1' })).toBeNull();
    expect(proxyFor(new URL('http://gw.example/v1'), undefined, { HTTP_PROXY: 'http://p:1' })).toBe('http://p:1');
  });
});

describe('waits and retries', () => {
  it('an empty Retry-After is no wait; an exact header name is found without a scan', () => {
    expect(requestedWaitMs({ 'retry-after': '  ' })).toBeNull();
    expect(requestedWaitMs({ 'retry-after': '2' })).toBe(2000);
    expect(requestedWaitMs({ 'Retry-After': '3' })).toBe(3000);
    expect(requestedWaitMs({})).toBeNull();
    expect(requestedWaitMs(undefined)).toBeNull();
  });

  it('without a status or a network phase nothing is retried; x-should-retry decides either way', () => {
    expect(shouldRetry({})).toBe(false);
    expect(shouldRetry({ headers: { 'x-should-retry': 'true' } })).toBe(true);
    expect(shouldRetry({ status: 503, headers: { 'x-should-retry': 'false' } })).toBe(false);
  });
});

describe('secretsOf', () => {
  it('a -H value "Bearer tok" yields the token alone too; a single word does not split', () => {
    const secrets = secretsOf(connection('http://gw/v1', { apiKey: undefined, headers: { Authorization: '  Bearer   tok-abcdef123  ' } }), {});
    expect(secrets).toContain('tok-abcdef123');
  });

  it('no proxy (null) takes no proxy credentials from the environment', () => {
    const env = { HTTPS_PROXY: 'http://u:env-proxy-pass@p:1' };
    expect(secretsOf(connection('http://gw/v1', { proxy: null }), env).some((s) => s.includes('env-proxy-pass'))).toBe(false);
    expect(secretsOf(connection('http://gw/v1'), env).some((s) => s.includes('env-proxy-pass'))).toBe(true);
  });
});
