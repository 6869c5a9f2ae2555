import { describe, expect, it } from 'vitest';
import { buildHeaders, redactHeaders, redactSecrets, secretsOf } from '../../src/transport/headers.js';
import { connection } from './loopback.js';

describe('buildHeaders', () => {
  it('no key: no auth header in either mode', () => {
    for (const auth of ['bearer', 'x-api-key'] as const) {
      const h = buildHeaders(connection('http://x/v1', { apiKey: undefined, auth }), '1.2.3');
      expect(Object.keys(h).map((k) => k.toLowerCase()).sort()).toEqual(['accept-encoding', 'content-type', 'user-agent']);
      expect(h['User-Agent']).toBe('gatechat/1.2.3');
    }
  });
});

describe('redaction', () => {
  it('masks credential headers, secret-looking names and any value holding the key', () => {
    const out = redactHeaders(
      {
        Authorization: 'Bearer sk-abc-123456',
        'x-api-key': 'sk-abc-123456',
        Cookie: 'a=b',
        'Proxy-Authorization': 'Basic Zm9vOmJhcg==',
        'X-Custom': 'prefix sk-abc-123456',
        'X-Session-Id': 's1',
        'Content-Type': 'application/json',
      },
      ['sk-abc-123456'],
    );
    expect(out).toEqual({
      Authorization: 'Bearer [redacted]',
      'x-api-key': '[redacted]',
      Cookie: '[redacted]',
      'Proxy-Authorization': 'Basic [redacted]',
      'X-Custom': '[redacted]',
      'X-Session-Id': '[redacted]',
      'Content-Type': 'application/json',
    });
  });

  it('redactSecrets masks every occurrence, ignoring empty or tiny secrets', () => {
    expect(redactSecrets('key sk-1234 and again sk-1234', ['sk-1234', '', 'a'])).toBe('key [redacted] and again [redacted]');
  });

  it('secretsOf collects the key and secret -H values (and their bare tokens)', () => {
    const conn = connection('http://x/v1', { apiKey: 'k-1', headers: { 'X-Auth-Token': 'Token abcdef', 'X-Team': 'blue' } });
    expect(secretsOf(conn)).toEqual(['k-1', 'Token abcdef', 'abcdef']);
  });
});
