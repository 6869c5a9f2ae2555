// Untangling gateways' message strings (SPEC §4: one line, the innermost message, no stack frames or paths).
import { describe, expect, it } from 'vitest';
import { embeddedJson, singleLine, withoutStackTrace } from '../../src/protocol/error-message.js';

describe('withoutStackTrace', () => {
  it('a trace header that repeats the message is dropped, spaces around either side ignored', () => {
    expect(withoutStackTrace('fetch failed TypeError: fetch failed  \n    at node:internal/deps/undici:1:2')).toBe('fetch failed');
  });

  it('a bare header is kept: nothing before it to repeat', () => {
    expect(withoutStackTrace('Error: ')).toBe('Error:');
  });

  it('source locations are cut out and the rest trimmed', () => {
    expect(withoutStackTrace('bad thing (/tmp/x/cli.js:582:7451)')).toBe('bad thing');
    expect(withoutStackTrace('failed at file:///a/b.js:3:1 while reading')).toBe('failed at  while reading');
  });
});

describe('embeddedJson', () => {
  it('the JSON object inside a message, with the words before it, whatever follows it', () => {
    expect(embeddedJson('Upstream: {"error":{"message":"m"}} (retrying)')).toEqual({ before: 'Upstream:', value: { error: { message: 'm' } } });
  });

  it('braces and escaped quotes inside its strings do not end it', () => {
    const text = 'wrap {"error":{"message":"use {name} or \\"}\\" here"}} tail';
    expect(embeddedJson(text)).toEqual({ before: 'wrap', value: { error: { message: 'use {name} or "}" here' } } });
  });

  it('braces in prose before it are skipped', () => {
    expect(embeddedJson('{name} is required {"code":1}')).toEqual({ before: '{name} is required', value: { code: 1 } });
  });

  it('an unclosed brace ends the search: rescanning the rest for every later brace would be quadratic on a hostile message', () => {
    expect(embeddedJson('a { b {"error":{"message":"m"}}')).toBeNull();
    expect(embeddedJson('no json here')).toBeNull();
  });
});

describe('singleLine', () => {
  it('line breaks with the spaces around them become one space; the ends trimmed; cut with an ellipsis', () => {
    expect(singleLine('  first \r\n\n  second  ', 300)).toBe('first second');
    expect(singleLine('abcdef', 6)).toBe('abcdef');
    expect(singleLine('abcdefg', 6)).toBe('abcde…');
  });
});
