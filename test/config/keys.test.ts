import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/exit-codes.js';
import {
  checkStoredValue,
  maskSecret,
  parseApi,
  parseApiKey,
  parseAuth,
  parseBaseUrl,
  parseBoolean,
  parseHeader,
  parseMaxTokensField,
  parseModel,
  parseNonNegativeInt,
  parsePositiveInt,
  parseProfileName,
  parseSeconds,
  parseTemperature,
} from '../../src/config/keys.js';

type Parser = (raw: string, option: string) => unknown;

function rejects(parse: Parser, raw: string, option = '--opt'): UsageError {
  let caught: unknown;
  try {
    parse(raw, option);
  } catch (error) {
    caught = error;
  }
  expect(caught, `${JSON.stringify(raw)} should be rejected`).toBeInstanceOf(UsageError);
  const error = caught as UsageError;
  expect(error.exitCode).toBe(2);
  expect(error.message.startsWith(`${option}: `)).toBe(true);
  return error;
}

const cases: Array<[string, Parser, Array<[string, unknown]>, string[]]> = [
  ['temperature', parseTemperature, [['0', 0], ['0.7', 0.7], [' 1.5 ', 1.5], ['2', 2], ['1e-1', 0.1], ['.5', 0.5]],
    ['hot', '', ' ', '-0.1', '-1', 'NaN', 'Infinity', '1e400', '0x10', '1,5', '1.2.3']],
  ['max-tokens', parsePositiveInt, [['1', 1], ['4096', 4096], ['+7', 7]],
    ['0', '-1', '1.5', '1e3', 'abc', '', '9007199254740993', '0x10']],
  ['retries', parseNonNegativeInt, [['0', 0], ['2', 2], ['10', 10]],
    ['-1', '1.5', 'two', '', ' ']],
  ['timeout', parseSeconds, [['120', 120], ['0.5', 0.5], ['2147483', 2147483]],
    ['0', '-5', 'forever', '', 'Infinity', '2147484', '1e10']],
  ['api', parseApi, [['chat', 'chat'], ['messages', 'messages'], ['Messages', 'messages']],
    ['completions', '', 'chat,messages']],
  ['auth', parseAuth, [['bearer', 'bearer'], ['x-api-key', 'x-api-key']],
    ['basic', '', 'apikey']],
  ['max-tokens-field', parseMaxTokensField, [['max_tokens', 'max_tokens'], ['max_completion_tokens', 'max_completion_tokens']],
    ['max-tokens', 'maxTokens', '']],
  ['boolean', parseBoolean,
    [['true', true], ['yes', true], ['on', true], ['1', true], ['false', false], ['no', false], ['off', false], ['0', false], ['TRUE', true]],
    ['maybe', '', '2', 'y']],
  ['model', parseModel, [['gpt-4o', 'gpt-4o'], ['  anthropic/claude-3.5  ', 'anthropic/claude-3.5']],
    ['', '   ', 'two words', 'tab\tin', 'nl\nin']],
  ['base-url', parseBaseUrl, [['http://localhost:8787', 'http://localhost:8787/v1'], ['https://h/api/v1/', 'https://h/api/v1']],
    ['not a url', 'ftp://h/v1', '', 'https://u:p@h/v1']],
  ['profile name', parseProfileName, [['work', 'work'], ['my.gw_2-b', 'my.gw_2-b']],
    ['', '../x', 'a b', '__proto__', '-x', 'x'.repeat(65)]],
];

describe.each(cases)('%s parser', (_name, parse, good, bad) => {
  it.each(good)('accepts %j', (raw, expected) => {
    expect(parse(raw, '--opt')).toEqual(expected);
  });
  it.each(bad.map((raw) => [raw]))('rejects %j naming the option', (raw) => {
    rejects(parse, raw);
  });
});

describe('error text', () => {
  it('names the option and quotes the value', () => {
    expect(rejects(parseTemperature, 'hot', '--temperature').message).toBe('--temperature: expected a number ≥ 0, got "hot"');
    expect(rejects(parsePositiveInt, '0', '--max-tokens').message).toContain('--max-tokens:');
    expect(rejects(parseApi, 'x', 'GATECHAT_API').message).toBe('GATECHAT_API: expected chat or messages, got "x"');
  });
});

describe('parseHeader', () => {
  it('splits "Name: value" at the first colon and trims', () => {
    expect(parseHeader('X-Team: a:b ', '-H')).toEqual(['X-Team', 'a:b']);
    expect(parseHeader('x-a:1', '-H')).toEqual(['x-a', '1']);
  });
  it.each([['no colon'], [': v'], ['Bad Name: v'], ['X-A:'], ['X-A:   '], ['X-A: a\r\nInjected: 1'], ['X(A): v']])(
    'rejects %j',
    (raw) => {
      rejects(parseHeader, raw, '--header');
    },
  );
});

describe('parseApiKey', () => {
  it('trims and accepts a key', () => {
    expect(parseApiKey('  sk-abc123  \n', 'api-key')).toBe('sk-abc123');
  });
  it('never echoes a rejected key', () => {
    const error = rejects(parseApiKey, 'sk-secret value', 'api-key');
    expect(error.message).not.toContain('secret');
    rejects(parseApiKey, '', 'api-key');
  });
});

describe('checkStoredValue (hand-edited config.json)', () => {
  it('accepts stored numbers, booleans and strings through the same parsers', () => {
    expect(checkStoredValue('temperature', 0.3, 'config temperature')).toBe(0.3);
    expect(checkStoredValue('temperature', '0.3', 'config temperature')).toBe(0.3);
    expect(checkStoredValue('stream', false, 'config stream')).toBe(false);
    expect(checkStoredValue('headers', { 'X-A': '1' }, 'config headers')).toEqual({ 'X-A': '1' });
  });
  it('rejects what config set would refuse', () => {
    expect(() => checkStoredValue('max-tokens', 0, 'config max-tokens')).toThrow(/^config max-tokens: /);
    expect(() => checkStoredValue('temperature', null, 'config temperature')).toThrow(UsageError);
    expect(() => checkStoredValue('headers', ['X-A: 1'], 'config headers')).toThrow(/^config headers: /);
    expect(() => checkStoredValue('headers', { 'X A': '1' }, 'config headers')).toThrow(/^config headers: /);
    expect(() => checkStoredValue('headers', { 'X-A': 1 }, 'config headers')).toThrow(/^config headers: /);
  });
});

describe('maskSecret', () => {
  it('keeps a vendor prefix and the last four characters only', () => {
    expect(maskSecret('sk-abcdefghijklmnop1234')).toBe('sk-…1234');
    expect(maskSecret('abcdefghijklmnop9876')).toBe('…9876');
    expect(maskSecret('short')).toBe('…');
    expect(maskSecret('sk-ant-api03-zzzzzzzzzzzzzzzz5678')).toBe('sk-…5678');
  });
});
