import { describe, expect, it } from 'vitest';
import { DEFAULTS, requireConnection, resolveSettings, type SettingsFlags } from '../../src/config/settings.js';
import type { ConfigFile } from '../../src/config/keys.js';
import { UsageError } from '../../src/exit-codes.js';

const file: ConfigFile = {
  'base-url': 'https://top.example/v1',
  'api-key': 'sk-top-0000000001',
  model: 'top-model',
  temperature: 0.1,
  headers: { 'X-Top': 'top', 'X-Shared': 'top' },
  profiles: {
    work: { 'base-url': 'https://work.example/v1', model: 'work-model', headers: { 'X-Shared': 'work' } },
    home: { model: 'home-model', stream: false },
  },
};

describe('resolveSettings precedence', () => {
  it('uses defaults when nothing is configured', () => {
    const s = resolveSettings({ flags: {}, env: {}, file: {} });
    expect(s).toMatchObject({ ...DEFAULTS, headers: {} });
    expect(s.baseUrl).toBeUndefined();
    expect(s.model).toBeUndefined();
    expect(s.temperature).toBeUndefined();
    expect(s.profile).toBeUndefined();
    expect(s.sources.api).toBe('default');
    expect(s.sources.headers).toBe('default');
    expect(s).toMatchObject({ api: 'chat', auth: 'bearer', maxTokensField: 'max_tokens', stream: true, timeoutS: 120, connectTimeoutS: 10, retries: 2, save: true });
  });

  // Each row: which layers set `model`, and which one must win.
  const layers = ['flag', 'env', 'profile', 'config'] as const;
  const matrix: Array<[Array<(typeof layers)[number]>, string]> = [
    [['flag', 'env', 'profile', 'config'], 'flag'],
    [['env', 'profile', 'config'], 'env'],
    [['profile', 'config'], 'profile'],
    [['config'], 'config'],
    [['flag', 'config'], 'flag'],
    [['env', 'config'], 'env'],
    [['flag', 'profile'], 'flag'],
  ];
  it.each(matrix)('model set by %j → %s wins', (set, winner) => {
    const flags: SettingsFlags = set.includes('flag') ? { model: 'm-flag' } : {};
    const env = set.includes('env') ? { GATECHAT_MODEL: 'm-env' } : {};
    const f: ConfigFile = { profiles: { p: set.includes('profile') ? { model: 'm-profile' } : {} } };
    if (set.includes('config')) f.model = 'm-config';
    const s = resolveSettings({ flags: { ...flags, profile: 'p' }, env, file: f });
    expect(s.model).toBe(`m-${winner}`);
    expect(s.sources.model).toBe(winner);
  });

  it('base URL and key follow the same order, env validated and normalised', () => {
    const s = resolveSettings({
      flags: {},
      env: { GATECHAT_BASE_URL: 'http://127.0.0.1:9000', GATECHAT_API_KEY: 'sk-env-000000000002' },
      file,
    });
    expect(s.baseUrl).toBe('http://127.0.0.1:9000/v1');
    expect(s.apiKey).toBe('sk-env-000000000002');
    expect(s.sources).toMatchObject({ baseUrl: 'env', apiKey: 'env', model: 'config' });
  });

  it('an empty environment variable counts as unset', () => {
    const s = resolveSettings({ flags: {}, env: { GATECHAT_MODEL: '', GATECHAT_PROFILE: '' }, file });
    expect(s.model).toBe('top-model');
    expect(s.profile).toBeUndefined();
  });

  it('names the variable when an environment value is invalid', () => {
    expect(() => resolveSettings({ flags: {}, env: { GATECHAT_BASE_URL: 'ftp://x' }, file: {} })).toThrow(/^GATECHAT_BASE_URL: /);
    expect(() => resolveSettings({ flags: {}, env: { GATECHAT_MODEL: 'a b' }, file: {} })).toThrow(/^GATECHAT_MODEL: /);
    expect(() => resolveSettings({ flags: {}, env: { GATECHAT_PROFILE: '../x' }, file })).toThrow(/^GATECHAT_PROFILE: /);
  });

  it('a profile inherits top-level keys it does not set', () => {
    const s = resolveSettings({ flags: { profile: 'work' }, env: {}, file });
    expect(s.profile).toBe('work');
    expect(s.baseUrl).toBe('https://work.example/v1');
    expect(s.apiKey).toBe('sk-top-0000000001');
    expect(s.temperature).toBe(0.1);
    expect(s.sources).toMatchObject({ profile: 'flag', baseUrl: 'profile', apiKey: 'config', temperature: 'config' });
  });

  it('selects the profile: flag, then GATECHAT_PROFILE, then default-profile', () => {
    const f: ConfigFile = { ...file, 'default-profile': 'home' };
    expect(resolveSettings({ flags: {}, env: {}, file: f })).toMatchObject({ profile: 'home', model: 'home-model', stream: false });
    expect(resolveSettings({ flags: {}, env: {}, file: f }).sources.profile).toBe('config');
    expect(resolveSettings({ flags: {}, env: { GATECHAT_PROFILE: 'work' }, file: f }).profile).toBe('work');
    expect(resolveSettings({ flags: { profile: 'home' }, env: { GATECHAT_PROFILE: 'work' }, file: f }).profile).toBe('home');
    expect(resolveSettings({ flags: {}, env: {}, file: f, profile: 'work' }).profile).toBe('work');
  });

  it('an unknown profile is a usage error listing the known ones', () => {
    for (const input of [
      { flags: { profile: 'nope' }, env: {}, file },
      { flags: {}, env: { GATECHAT_PROFILE: 'nope' }, file },
      { flags: {}, env: {}, file: { ...file, 'default-profile': 'nope' } },
    ]) {
      let caught: unknown;
      try {
        resolveSettings(input);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(UsageError);
      expect((caught as UsageError).message).toContain('no profile named "nope"');
      expect((caught as UsageError).message).toContain('known profiles: work, home');
    }
    expect(() => resolveSettings({ flags: { profile: 'x' }, env: {}, file: {} })).toThrow(/known profiles: none/);
  });

  it('merges headers: top level, profile, then -H (names case-insensitive)', () => {
    const s = resolveSettings({ flags: { profile: 'work', headers: { 'x-top': 'flag', 'X-Flag': '1' } }, env: {}, file });
    expect(s.headers).toEqual({ 'X-Shared': 'work', 'x-top': 'flag', 'X-Flag': '1' });
    expect(s.sources.headers).toBe('flag');
    expect(resolveSettings({ flags: {}, env: {}, file }).headers).toEqual({ 'X-Top': 'top', 'X-Shared': 'top' });
  });

  it('validates stored values only where they are used, naming key and profile', () => {
    const broken: ConfigFile = { temperature: 'hot' as unknown as number, profiles: { w: { 'max-tokens': 0 } } };
    expect(() => resolveSettings({ flags: {}, env: {}, file: broken })).toThrow(/^config temperature: expected a number ≥ 0, got "hot"/);
    expect(resolveSettings({ flags: { temperature: 1 }, env: {}, file: broken }).temperature).toBe(1);
    expect(() => resolveSettings({ flags: { temperature: 1, profile: 'w' }, env: {}, file: broken })).toThrow(
      /^config max-tokens \(profile w\): /,
    );
  });

  it('flags override every stored setting', () => {
    const s = resolveSettings({
      flags: { api: 'messages', auth: 'x-api-key', stream: true, timeoutS: 5, connectTimeoutS: 1, retries: 0, save: false, maxTokens: 9 },
      env: {},
      file: { ...file, api: 'chat', stream: false, timeout: 50, retries: 5, save: true, 'max-tokens': 100 },
    });
    expect(s).toMatchObject({ api: 'messages', auth: 'x-api-key', stream: true, timeoutS: 5, connectTimeoutS: 1, retries: 0, save: false, maxTokens: 9 });
  });
});

describe('requireConnection', () => {
  it('names the exact command for a missing base URL, then model', () => {
    const none = resolveSettings({ flags: {}, env: {}, file: {} });
    expect(() => requireConnection(none)).toThrow('no base URL configured: run: gatechat config set base-url https://your-gateway/v1');
    const noModel = resolveSettings({ flags: { baseUrl: 'http://localhost/v1' }, env: {}, file: {} });
    expect(() => requireConnection(noModel)).toThrow('no model configured: run: gatechat config set model <id> (or pass -m)');
    try {
      requireConnection(noModel);
    } catch (error) {
      expect((error as UsageError).exitCode).toBe(2);
    }
    const ok = resolveSettings({ flags: { baseUrl: 'http://localhost/v1', model: 'echo' }, env: {}, file: {} });
    expect(requireConnection(ok).model).toBe('echo');
  });
});

describe('per-model entries (SPEC §11)', () => {
  const withEntries: ConfigFile = {
    temperature: 0.1,
    'max-tokens': 100,
    models: {
      fast: { model: 'vendor/fast-1', temperature: 0.4, system: 'Be brief.', options: { top_p: 0.5, seed: 1 } },
      'vendor/fast-1': { 'max-tokens-field': 'max_completion_tokens', 'max-tokens': 9, temperature: 0.7 },
    },
    profiles: { p: { temperature: 0.3, models: { fast: { api: 'messages' } } } },
  };

  it('the alias resolves to its id; its entry over the id entry over profile and top level', () => {
    const s = resolveSettings({ flags: { model: 'fast' }, env: {}, file: withEntries, profile: 'p' });
    expect(s).toMatchObject({ model: 'vendor/fast-1', alias: 'fast', api: 'messages', temperature: 0.4, maxTokens: 9, maxTokensField: 'max_completion_tokens', system: 'Be brief.' });
    expect(s.extraBody).toEqual({ top_p: 0.5, seed: 1 });
    expect(s.sources).toMatchObject({ model: 'flag', temperature: 'model', api: 'model', system: 'model' });
  });

  it('flags win over the entry; -o merges over the entry options per field', () => {
    const s = resolveSettings({ flags: { model: 'fast', temperature: 0, system: 'x', extraBody: { top_p: 1 } }, env: {}, file: withEntries });
    expect(s).toMatchObject({ temperature: 0, system: 'x', extraBody: { top_p: 1, seed: 1 } });
    expect(s.sources.temperature).toBe('flag');
  });

  it('GATECHAT_MODEL names an entry too; a model without an entry gets profile and top-level values', () => {
    expect(resolveSettings({ flags: {}, env: { GATECHAT_MODEL: 'fast' }, file: withEntries }).temperature).toBe(0.4);
    const plain = resolveSettings({ flags: { model: 'other' }, env: {}, file: withEntries, profile: 'p' });
    expect(plain).toMatchObject({ model: 'other', temperature: 0.3, maxTokens: 100 });
    expect(plain.alias).toBeUndefined();
  });

  it('entry names are own keys only: a model called constructor has no entry', () => {
    const s = resolveSettings({ flags: { model: 'constructor' }, env: {}, file: { models: {} } });
    expect(s.model).toBe('constructor');
    expect(s.temperature).toBeUndefined();
  });
});

describe('api-key-cmd precedence (SPEC §14: GATECHAT_API_KEY → api-key-cmd → api-key)', () => {
  const CMD = 'pass show gateway';
  const resolve = (env: Record<string, string>, f: ConfigFile) => {
    const s = resolveSettings({ flags: {}, env, file: f });
    return { apiKey: s.apiKey, apiKeyCmd: s.apiKeyCmd };
  };

  it('the environment key beats a command; a command beats a stored key in the same layer', () => {
    expect(resolve({ GATECHAT_API_KEY: 'sk-env-1111' }, { 'api-key-cmd': CMD, 'api-key': 'sk-file-2222' })).toEqual({ apiKey: 'sk-env-1111', apiKeyCmd: undefined });
    expect(resolve({}, { 'api-key-cmd': CMD, 'api-key': 'sk-file-2222' })).toEqual({ apiKey: undefined, apiKeyCmd: CMD });
    expect(resolve({}, { profiles: { w: { 'api-key-cmd': CMD, 'api-key': 'sk-w-3333' } }, 'default-profile': 'w' })).toEqual({ apiKey: undefined, apiKeyCmd: CMD });
    expect(resolve({}, { 'api-key': 'sk-file-2222' })).toEqual({ apiKey: 'sk-file-2222', apiKeyCmd: undefined });
  });

  it('across layers the profile wins: its command beats a top-level key, its key beats a top-level command', () => {
    expect(resolve({}, { 'api-key': 'sk-top-4444', profiles: { w: { 'api-key-cmd': CMD } }, 'default-profile': 'w' })).toEqual({ apiKey: undefined, apiKeyCmd: CMD });
    expect(resolve({}, { 'api-key-cmd': CMD, profiles: { w: { 'api-key': 'sk-w-5555' } }, 'default-profile': 'w' })).toEqual({ apiKey: 'sk-w-5555', apiKeyCmd: undefined });
  });

  it('proxy: the flag beats the profile, the profile beats the top level', () => {
    const f: ConfigFile = { proxy: 'http://top:1', profiles: { w: { proxy: 'http://w:2' } } };
    expect(resolveSettings({ flags: {}, env: {}, file: f }).proxy).toBe('http://top:1');
    expect(resolveSettings({ flags: { profile: 'w' }, env: {}, file: f }).proxy).toBe('http://w:2');
    expect(resolveSettings({ flags: { profile: 'w', proxy: 'http://flag:3' }, env: {}, file: f }).proxy).toBe('http://flag:3');
  });
});
