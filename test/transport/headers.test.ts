import { describe, expect, it } from 'vitest';
import { ANTHROPIC_VERSION, buildHeaders, credentialHeaderNames, redactHeaders, redactSecrets, secretsOf } from '../../src/transport/headers.js';
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

describe('buildHeaders with a key', () => {
  it('bearer: Authorization; x-api-key: the key and anthropic-version; -H replaces a default whatever its case', () => {
    expect(buildHeaders(connection('http://x/v1', { apiKey: 'k-1', headers: {} }), '1.0.0')).toEqual({
      'Content-Type': 'application/json', 'User-Agent': 'gatechat/1.0.0', 'Accept-Encoding': 'gzip', Authorization: 'Bearer k-1',
    });
    expect(buildHeaders(connection('http://x/v1', { apiKey: 'k-1', auth: 'x-api-key', headers: { 'Anthropic-Version': '2099-01-01', 'user-agent': 'me' } }), '1.0.0')).toEqual({
      'Content-Type': 'application/json', 'user-agent': 'me', 'Accept-Encoding': 'gzip', 'x-api-key': 'k-1', 'Anthropic-Version': '2099-01-01',
    });
    expect(ANTHROPIC_VERSION).toBe('2023-06-01');
    expect(buildHeaders(connection('http://x/v1', { apiKey: 'k', auth: 'x-api-key', headers: {} }), '1')['anthropic-version']).toBe('2023-06-01');
    expect(() => buildHeaders(connection('http://x/v1', { apiKey: 'k', auth: 'oauth' as 'bearer' }), '1')).toThrow('unknown auth mode oauth');
  });

  it('credentialHeaderNames: the built-in credential headers and every -H name, lower-cased', () => {
    expect([...credentialHeaderNames(connection('http://x/v1', { headers: { 'X-Team': 'blue', 'X-Portkey-Provider': 'p' } }))].sort()).toEqual(
      ['authorization', 'cookie', 'proxy-authorization', 'x-api-key', 'x-portkey-provider', 'x-team'],
    );
  });
});

describe('redaction', () => {
  it('keeps the scheme of a masked value only at its start; empty secrets match nothing', () => {
    expect(redactHeaders({ Authorization: 'Bearer  abc', 'X-Api-Key': 'my Token x', Cookie: 'Basic', 'X-Team': 'blue', 'X-Note': 'has sk-1234 inside' }, ['', 'sk-1234'])).toEqual({
      Authorization: 'Bearer [redacted]', 'X-Api-Key': '[redacted]', Cookie: '[redacted]', 'X-Team': 'blue', 'X-Note': '[redacted]',
    });
    expect(redactHeaders({ 'X-Team': 'blue' })).toEqual({ 'X-Team': 'blue' });
  });

  it('redactSecrets masks a longer secret whole before one inside it; four characters are enough', () => {
    expect(redactSecrets('key abcd and abcdefgh', ['abcd', 'abcdefgh'])).toBe('key [redacted] and [redacted]');
    expect(redactSecrets('abcdefgh', ['abcd', 'abcdefgh'])).toBe('[redacted]');
    expect(redactSecrets('abc', ['abc'])).toBe('abc');
  });

  it('secretsOf: a header value of one word has no separate token; proxies from each variable, lower case first', () => {
    const conn = connection('http://x/v1', { apiKey: undefined, headers: { 'X-Api-Key': '  solo  ', 'X-Token': 'a b c' }, proxy: undefined });
    expect(secretsOf(conn, {})).toEqual(['  solo  ', 'a b c']);
    for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
      expect(secretsOf(connection('http://x/v1', { apiKey: undefined, headers: {}, proxy: undefined }), { [name]: 'http://u:pw-9876@proxy:1' }), name).toContain('pw-9876');
    }
    expect(secretsOf(connection('http://x/v1', { apiKey: undefined, headers: {}, proxy: undefined }), { NO_PROXY: 'http://u:pw-9876@proxy:1' })).toEqual([]);
  });

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

  it('a -H name is secret when a secret word is a whole dash/underscore part of it, not when the letters sit inside a word', () => {
    const secret = ['X-Api-Key', 'x-portkey-api-key', 'X-Auth-Token', 'x_access_token', 'X-Client-Secret', 'X-Session-Id', 'apikey', 'X-Password', 'x-amz-signature', 'Private-Token'];
    const plain = ['x-portkey-provider', 'X-Portkey-Config', 'X-Monkey-Business', 'x-keyboard-layout', 'X-Author', 'X-Tokenizer', 'X-Sessions-Left', 'x-turnkey'];
    for (const name of secret) expect(redactHeaders({ [name]: 'v-1234' })[name], name).toBe('[redacted]');
    for (const name of plain) expect(redactHeaders({ [name]: 'v-1234' })[name], name).toBe('v-1234');
    const conn = connection('http://x/v1', { apiKey: undefined, headers: { 'x-portkey-provider': 'openai', 'x-portkey-api-key': 'pk-777777' } });
    expect(secretsOf(conn)).toEqual(['pk-777777']);
  });

  it('secretsOf collects the key and secret -H values (and their bare tokens)', () => {
    const conn = connection('http://x/v1', { apiKey: 'k-1', headers: { 'X-Auth-Token': 'Token abcdef', 'X-Team': 'blue' } });
    expect(secretsOf(conn)).toEqual(['k-1', 'Token abcdef', 'abcdef']);
  });

  it('secretsOf adds each JSON-escaped form a gateway may echo; a plain key stays one string', () => {
    const plain = connection('http://x/v1', { apiKey: 'sk-plain-123456', headers: {}, proxy: null });
    expect(secretsOf(plain)).toEqual(['sk-plain-123456']);
    const special = connection('http://x/v1', { apiKey: 'sk-a/b"c\\d\u00e9', headers: {}, proxy: null });
    const forms = secretsOf(special);
    for (const form of ['sk-a/b"c\\d\u00e9', 'sk-a\\/b\\"c\\\\d\\u00e9', 'sk-a\\/b\\"c\\\\d\\u00E9', 'sk-a/b\\"c\\\\d\u00e9']) {
      expect(forms, form).toContain(form);
    }
    expect(redactSecrets('{"message":"bad key sk-a\\/b\\"c\\\\d\\u00e9"}', forms)).toBe('{"message":"bad key [redacted]"}');
  });

  it('secretsOf adds proxy credentials: the password, user:password and its base64, from the proxy setting or the environment', () => {
    const basic = Buffer.from('al:p@ss-word').toString('base64');
    const explicit = connection('http://x/v1', { apiKey: undefined, headers: {}, proxy: 'http://al:p%40ss-word@proxy:3128' });
    expect(secretsOf(explicit, {})).toEqual(expect.arrayContaining(['p%40ss-word', 'p@ss-word', 'al:p@ss-word', basic]));
    const fromEnv = connection('http://x/v1', { apiKey: undefined, headers: {}, proxy: undefined });
    expect(secretsOf(fromEnv, { HTTPS_PROXY: 'al:p%40ss-word@proxy:3128' })).toEqual(expect.arrayContaining(['p@ss-word', basic]));
    // No proxy for this connection (the in-process demo gateway): the environment's does not count.
    expect(secretsOf({ ...fromEnv, proxy: null }, { HTTPS_PROXY: 'http://al:pw-1234@proxy' })).toEqual([]);
    // A -H Basic value: the user:password inside it too.
    const header = connection('http://x/v1', { apiKey: undefined, headers: { Authorization: `Basic ${basic}` }, proxy: null });
    expect(secretsOf(header)).toEqual(expect.arrayContaining([basic, 'al:p@ss-word', 'p@ss-word']));
  });
});
