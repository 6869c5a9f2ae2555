// --base-url as typed → the base every endpoint is joined to; and the two helpers beside it.
import { describe, expect, it } from 'vitest';
import { endpointInBaseUrlHint, isLoopbackHost, normalizeBaseUrl } from '../../src/transport/base-url.js';
import { basicCredentialForms, echoedForms } from '../../src/transport/secret-forms.js';

describe('normalizeBaseUrl', () => {
  it('trims, drops query, fragment and trailing slashes, and defaults an empty path to /v1', () => {
    expect(normalizeBaseUrl('  https://gw.example/v1/  ')).toBe('https://gw.example/v1');
    expect(normalizeBaseUrl('https://gw.example/api//?x=1#top')).toBe('https://gw.example/api');
    expect(normalizeBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/v1');
    expect(normalizeBaseUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/v1');
  });

  it('refuses what is not an http(s) URL, or carries credentials, naming the option', () => {
    expect(() => normalizeBaseUrl('gw.example/v1')).toThrow('--base-url: not a valid URL: "gw.example/v1"');
    expect(() => normalizeBaseUrl('ftp://gw.example', 'base-url (config)')).toThrow('base-url (config): only http: and https: URLs are supported, got ftp:');
    expect(() => normalizeBaseUrl('https://me:pw@gw.example/v1')).toThrow(/^--base-url: user:password in the URL is not supported/);
    expect(() => normalizeBaseUrl('https://me@gw.example/v1')).toThrow(/user:password/);
    try {
      normalizeBaseUrl('nope');
    } catch (error) {
      expect(error).toMatchObject({ exitCode: 2, hint: 'expected e.g. https://gateway.example.com/v1' });
    }
  });
});

describe('endpointInBaseUrlHint', () => {
  it('names the endpoint gatechat adds itself and the base URL to use instead', () => {
    expect(endpointInBaseUrlHint('https://gw.example/v1/chat/completions')).toBe(
      'the base URL ends in /chat/completions, which gatechat adds itself: use --base-url https://gw.example/v1',
    );
    expect(endpointInBaseUrlHint('https://gw.example/v1/messages/')).toMatch(/ends in \/messages, .* use --base-url https:\/\/gw.example\/v1$/);
    expect(endpointInBaseUrlHint('https://gw.example/models')).toMatch(/use --base-url https:\/\/gw.example\/v1$/);
    expect(endpointInBaseUrlHint('https://gw.example/v1')).toBeUndefined();
  });
});

describe('isLoopbackHost', () => {
  it('localhost, ::1 (bracketed or not) and 127.x.y.z only', () => {
    expect(['localhost', '::1', '[::1]', '127.0.0.1', '127.10.200.3'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['localhost.example', '10.0.0.1', '127.0.0', '127.0.0.1.nip.io', 'x127.0.0.1', '::2'].map(isLoopbackHost)).toEqual([false, false, false, false, false, false]);
  });
});

describe('echoedForms', () => {
  it('the secret, and how a gateway might echo it escaped in JSON, once or twice', () => {
    const forms = echoedForms('a/b"c<é\n');
    expect(forms[0]).toBe('a/b"c<é\n');
    for (const form of ['a/b\\"c<é\\n', 'a\\/b\\"c<é\\n', 'a/b\\"c\\u003cé\\n', 'a/b\\"c\\u003Cé\\n', 'a/b\\"c<\\u00e9\\n', 'a/b\\"c<\\u00E9\\n', 'a/b\\\\\\"c<é\\\\n']) {
      expect(forms).toContain(form);
    }
    expect(new Set(forms).size).toBe(forms.length);
    // Control characters always go as \u escapes; a plain secret has only itself.
    expect(echoedForms('k\u0001')).toContain('k\\u0001');
    expect(echoedForms('plainkey')).toEqual(['plainkey']);
    expect(echoedForms('a\tb\rc\bd\fe\\')).toContain('a\\tb\\rc\\bd\\fe\\\\');
    expect(echoedForms('x&y>z')).toEqual(expect.arrayContaining(['x\\u0026y\\u003ez', 'x\\u0026y\\u003Ez']));
  });
});

describe('basicCredentialForms', () => {
  it('the token, the decoded user:password and the password alone', () => {
    const token = Buffer.from('user:s3cret').toString('base64');
    expect(basicCredentialForms(`Basic ${token}`)).toEqual([token, 'user:s3cret', 's3cret']);
    expect(basicCredentialForms(`  basic   ${token} `)).toEqual([token, 'user:s3cret', 's3cret']);
    const noColon = Buffer.from('justtoken').toString('base64');
    expect(basicCredentialForms(`Basic ${noColon}`)).toEqual([noColon]);
    expect(basicCredentialForms('Bearer abc')).toEqual([]);
    expect(basicCredentialForms('Basic')).toEqual([]);
    expect(basicCredentialForms(`Basic ${token} extra`)).toEqual([]);
    expect(basicCredentialForms(`NotBasic ${token}`)).toEqual([]);
    // An empty user: the colon is the first character, and the password is still a secret.
    const noUser = Buffer.from(':pw-only').toString('base64');
    expect(basicCredentialForms(`Basic ${noUser}`)).toEqual([noUser, ':pw-only', 'pw-only']);
  });
});
