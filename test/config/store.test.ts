import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configDir, openConfigStore } from '../../src/config/store.js';
import { UsageError } from '../../src/exit-codes.js';

const posix = process.platform !== 'win32';
let root: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatechat-config-'));
  dir = join(root, 'nested', 'gatechat');
  env = { GATECHAT_CONFIG_DIR: dir };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('config store', () => {
  it('honours GATECHAT_CONFIG_DIR and reads a missing file as empty without creating anything', () => {
    const store = openConfigStore(env);
    expect(configDir(env)).toBe(dir);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(store.snapshot()).toEqual({});
    expect(store.get('model')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('uses the XDG config dir with no -nodejs suffix by default', () => {
    if (process.platform !== 'linux') return;
    expect(configDir({ XDG_CONFIG_HOME: '/x/cfg' })).toBe('/x/cfg/gatechat');
  });

  it('round-trips top-level and profile keys', async () => {
    const store = openConfigStore(env);
    await store.set('model', 'echo');
    await store.set('temperature', 0.5);
    await store.set('base-url', 'https://work.example/v1', 'work.eu');
    await store.set('headers', { 'X-A': '1' }, 'work.eu');
    await store.set('default-profile', 'work.eu');
    expect(store.get('model')).toBe('echo');
    expect(store.get('base-url', 'work.eu')).toBe('https://work.example/v1');
    expect(store.get('model', 'missing')).toBeUndefined();
    // A dotted profile name is one key, not a path.
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      model: 'echo',
      temperature: 0.5,
      'default-profile': 'work.eu',
      profiles: { 'work.eu': { 'base-url': 'https://work.example/v1', headers: { 'X-A': '1' } } },
    });
    expect(await store.unset('model')).toBe(true);
    expect(await store.unset('model')).toBe(false);
    expect(await store.unset('headers', 'work.eu')).toBe(true);
    expect(await store.unset('headers', 'nope')).toBe(false);
    expect(openConfigStore(env).snapshot()).toEqual({
      temperature: 0.5,
      'default-profile': 'work.eu',
      profiles: { 'work.eu': { 'base-url': 'https://work.example/v1' } },
    });
  });

  it.runIf(posix)('creates the directory 0700 and the file 0600', async () => {
    const store = openConfigStore(env);
    await store.set('api-key', 'sk-test-000000001234');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it.runIf(posix)('tightens a pre-existing world-readable file to 0600 on write', async () => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'config.json');
    writeFileSync(path, '{"model":"a"}', { mode: 0o644 });
    chmodSync(path, 0o644);
    await openConfigStore(env).set('model', 'b');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ model: 'b' });
  });

  it.each([['{"model": "a",'], [''], ['not json at all'], ['{"model":"a"}\n}']])(
    'reports corrupt content %j with its path and never overwrites it',
    async (content) => {
      mkdirSync(dir, { recursive: true });
      const path = join(dir, 'config.json');
      writeFileSync(path, content);
      const before = readFileSync(path);
      const store = openConfigStore(env);
      const expected = `config file is not valid JSON: ${path} (fix or remove it)`;
      expect(() => store.snapshot()).toThrow(expected);
      expect(() => store.snapshot()).toThrow(UsageError);
      await expect(store.set('model', 'x')).rejects.toThrow(expected);
      await expect(store.unset('model')).rejects.toThrow(expected);
      expect(readFileSync(path).equals(before)).toBe(true);
    },
  );

  it('rejects a file that is JSON but not an object, or has malformed profiles', async () => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'config.json');
    writeFileSync(path, '["model"]');
    expect(() => openConfigStore(env).snapshot()).toThrow(`config file is not a JSON object: ${path}`);
    await expect(openConfigStore(env).set('model', 'x')).rejects.toThrow(UsageError);
    expect(readFileSync(path, 'utf8')).toBe('["model"]');
    writeFileSync(path, '{"profiles":{"w":"x"}}');
    expect(() => openConfigStore(env).snapshot()).toThrow(/"profiles" must be an object of objects/);
  });
});
