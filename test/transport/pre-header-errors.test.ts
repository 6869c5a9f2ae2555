// What a failure before the response headers says and whether it is retried (SPEC §7): the mapping from
// Node's and undici's error codes, directly and through a proxy. The real failures are produced over
// loopback in http.test.ts; these pin every code's line, phase, retry and hint.
import { describe, expect, it } from 'vitest';
import { preHeaderError, proxyError } from '../../src/transport/http.js';
import { connection } from './loopback.js';

const conn = connection('http://gw.example:8080/v1', { timeouts: { connectMs: 1500, headersMs: 2500, idleMs: 5000 } });
const url = new URL('http://gw.example:8080/v1/chat/completions');
const coded = (code: string, message = `failed: ${code}`) => Object.assign(new Error(message), { code });
const shape = (e: { phase: string; message: string; retryable: boolean; hint?: string }) => ({ phase: e.phase, message: e.message, retryable: e.retryable, hint: e.hint });

describe('preHeaderError', () => {
  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'connect', 'timed out connecting to gw.example:8080 after 1.5 s (--connect-timeout)', true, undefined],
    ['GATECHAT_CONNECT_TIMEOUT', 'connect', 'timed out connecting to gw.example:8080 after 1.5 s (--connect-timeout)', true, undefined],
    ['ECONNREFUSED', 'connect', 'cannot connect to gw.example:8080: connection refused', true, 'is the gateway running? check: gatechat config get base-url'],
    ['ENOTFOUND', 'connect', 'cannot connect to gw.example:8080: host not found', false, 'check: gatechat config get base-url'],
    ['EAI_AGAIN', 'connect', 'cannot connect to gw.example:8080: EAI_AGAIN', true, undefined],
    ['EHOSTUNREACH', 'connect', 'cannot connect to gw.example:8080: EHOSTUNREACH', true, undefined],
    ['ENETUNREACH', 'connect', 'cannot connect to gw.example:8080: ENETUNREACH', true, undefined],
    ['ETIMEDOUT', 'connect', 'cannot connect to gw.example:8080: ETIMEDOUT', true, undefined],
    ['UND_ERR_HEADERS_TIMEOUT', 'headers', 'timed out waiting for response headers after 2.5 s (--timeout)', true, undefined],
    ['GATECHAT_HEADERS_TIMEOUT', 'headers', 'timed out waiting for response headers after 2.5 s (--timeout)', true, undefined],
    ['UND_ERR_SOCKET', 'headers', 'the connection to gw.example:8080 closed before the response headers', true, undefined],
    ['ECONNRESET', 'headers', 'the connection to gw.example:8080 closed before the response headers', true, undefined],
    ['EPIPE', 'headers', 'the connection to gw.example:8080 closed before the response headers', true, undefined],
    ['UND_ERR_CLOSED', 'headers', 'the connection to gw.example:8080 closed before the response headers', true, undefined],
    ['UND_ERR_HEADERS_OVERFLOW', 'headers', 'the response headers from gw.example:8080 are larger than Node reads (16 KiB unless raised)', false, 'raise the limit: NODE_OPTIONS=--max-http-header-size=65536'],
    ['HPE_HEADER_OVERFLOW', 'headers', 'the response headers from gw.example:8080 are larger than Node reads (16 KiB unless raised)', false, 'raise the limit: NODE_OPTIONS=--max-http-header-size=65536'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'connect', 'TLS error connecting to gw.example:8080: failed: ERR_TLS_CERT_ALTNAME_INVALID', false, undefined],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'connect', 'TLS error connecting to gw.example:8080: failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE', false, undefined],
    ['ESOMETHING', 'connect', 'cannot connect to gw.example:8080: failed: ESOMETHING', true, undefined],
  ])('%s', (code, phase, message, retryable, hint) => {
    expect(shape(preHeaderError(coded(code), url, conn))).toEqual({ phase, message, retryable, hint });
  });

  it('a code found in the cause undici wraps around the system error', () => {
    const wrapped = Object.assign(new Error('fetch failed'), { cause: coded('ECONNREFUSED') });
    expect(preHeaderError(wrapped, url, conn).message).toBe('cannot connect to gw.example:8080: connection refused');
  });

  it('what is not an Error is named as it is', () => {
    expect(shape(preHeaderError('socket hang up', url, conn))).toEqual({ phase: 'connect', message: 'cannot connect to gw.example:8080: socket hang up', retryable: true, hint: undefined });
  });

  it('a response that is not HTTP: the reason undici gives in brackets, or node:http’s `reason`; never retried', () => {
    const undici = Object.assign(new Error('Response does not match the HTTP/1.1 protocol (Invalid header value char)'), { code: 'HPE_INVALID_HEADER_TOKEN' });
    expect(shape(preHeaderError(undici, url, conn))).toEqual({ phase: 'headers', message: 'the response from gw.example:8080 is not valid HTTP (Invalid header value char)', retryable: false, hint: undefined });
    const node = Object.assign(new Error('Parse Error: Invalid header value char'), { name: 'HTTPParserError', reason: 'Invalid header value char', code: 'HPE_INVALID_HEADER_TOKEN' });
    expect(preHeaderError(node, url, conn).message).toBe('the response from gw.example:8080 is not valid HTTP (Invalid header value char)');
    const bare = Object.assign(new Error('garbled'), { name: 'HTTPParserError' });
    expect(preHeaderError(bare, url, conn).message).toBe('the response from gw.example:8080 is not valid HTTP (garbled)');
  });
});

describe('proxyError', () => {
  const proxy = 'http://user:pw@proxy.example:3128';
  const hint = 'check --proxy, the proxy key or HTTPS_PROXY/HTTP_PROXY (NO_PROXY lists hosts to reach directly)';

  it('a tunnel the proxy refused names its status and phrase; an unknown status has none', () => {
    expect(shape(proxyError(new Error('Proxy response (403) !== 200 when HTTP Tunneling'), url, proxy, conn))).toEqual({
      phase: 'connect',
      message: 'proxy http://proxy.example:3128 refused to connect to gw.example:8080: HTTP 403 Forbidden',
      retryable: false,
      hint,
    });
    expect(proxyError(new Error('Proxy response (599) !== 200'), url, proxy, conn).message).toBe('proxy http://proxy.example:3128 refused to connect to gw.example:8080: HTTP 599');
  });

  it('407: credentials in the proxy URL', () => {
    expect(shape(proxyError(new Error('Proxy Authentication Required'), url, proxy, conn))).toEqual({
      phase: 'connect',
      message: 'proxy http://proxy.example:3128 refused the request: HTTP 407 Proxy Authentication Required',
      retryable: false,
      hint: 'give the proxy credentials in its URL: http://user:password@proxy:port',
    });
  });

  it('the proxy itself unreachable, and anything else said as without a proxy, through it', () => {
    expect(shape(proxyError(coded('ECONNREFUSED'), url, proxy, conn))).toEqual({ phase: 'connect', message: 'cannot connect to proxy http://proxy.example:3128: connection refused', retryable: true, hint });
    expect(shape(proxyError(coded('ENOTFOUND'), url, proxy, conn))).toEqual({ phase: 'connect', message: 'cannot connect to proxy http://proxy.example:3128: host not found', retryable: false, hint });
    expect(shape(proxyError(coded('UND_ERR_HEADERS_OVERFLOW'), url, proxy, conn))).toEqual({
      phase: 'headers',
      message: 'the response headers from gw.example:8080 are larger than Node reads (16 KiB unless raised) (through proxy http://proxy.example:3128)',
      retryable: false,
      hint: 'raise the limit: NODE_OPTIONS=--max-http-header-size=65536',
    });
    expect(proxyError('odd', url, proxy, conn).message).toBe('cannot connect to gw.example:8080: odd (through proxy http://proxy.example:3128)');
  });
});
