// SPEC §5.2: sending the key over plain http to anything but loopback prints a warning. The rule is
// pure (plainHttpWarning), so it is tested here without any network: tests never leave 127.0.0.1.
// The binary's side (no warning for http://127.0.0.1) is in test/e2e/secrets.test.ts.
import { describe, expect, it } from 'vitest';
import { plainHttpWarning, type Connection } from '../../src/transport/http.js';

const conn = (baseUrl: string, key: { apiKey?: string } = { apiKey: 'sk-SECRET-canary-7f3a9' }): Connection => ({
  baseUrl,
  apiKey: key.apiKey,
  auth: 'bearer',
  headers: {},
  timeouts: { connectMs: 1000, headersMs: 1000, idleMs: 1000 },
  retries: 0,
});

describe('plainHttpWarning', () => {
  it('warns for a key over http to a non-loopback host, naming the host and never the key', () => {
    for (const [url, host] of [
      ['http://192.0.2.1/v1', '192.0.2.1'],
      ['http://gateway.example.com/api/v1', 'gateway.example.com'],
      ['http://10.0.0.5:8080/v1', '10.0.0.5'],
      ['http://[2001:db8::1]/v1', '[2001:db8::1]'],
    ] as const) {
      const warning = plainHttpWarning(conn(url));
      expect(warning, url).toMatch(/plain http/);
      expect(warning, url).toContain(host);
      expect(warning, url).not.toContain('SECRET-canary');
    }
  });

  // Only a dotted-quad 127.x.y.z is loopback: a DNS name that merely starts with "127." can resolve anywhere.
  it('warns for a DNS name that only looks like 127.x (127.0.0.1.example.com)', () => {
    expect(plainHttpWarning(conn('http://127.0.0.1.example.com/v1'))).toMatch(/plain http/);
  });

  it('does not warn over https', () => {
    expect(plainHttpWarning(conn('https://192.0.2.1/v1'))).toBeNull();
    expect(plainHttpWarning(conn('https://gateway.example.com/v1'))).toBeNull();
  });

  it('does not warn for loopback: 127.0.0.1, 127.x.y.z, localhost, [::1]', () => {
    for (const url of ['http://127.0.0.1:8787/v1', 'http://127.1.2.3/v1', 'http://localhost:8787/v1', 'http://[::1]:8787/v1']) {
      expect(plainHttpWarning(conn(url)), url).toBeNull();
    }
  });

  it('does not warn when no key is sent', () => {
    expect(plainHttpWarning(conn('http://192.0.2.1/v1', {}))).toBeNull();
    expect(plainHttpWarning(conn('http://192.0.2.1/v1', { apiKey: '' }))).toBeNull();
  });
});
