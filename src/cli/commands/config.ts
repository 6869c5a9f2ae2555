import { ExitCode, GatechatError, UsageError } from '../../exit-codes.js';
import {
  checkStoredValue,
  displayValue,
  KEY_NAMES,
  keySpec,
  maskSecret,
  parseApiKey,
  parseHeader,
  parseProfileName,
  unknownKeyError,
  type ConfigFile,
  type ConfigScope,
  type TopLevelKey,
} from '../../config/keys.js';
import { KEY_DEFAULTS } from '../../config/settings.js';
import {
  entryNames,
  MODEL_ENTRY_KEY_NAMES,
  modelEntryKey,
  parseModelEntryValue,
  parseModelName,
  storedEntry,
  type ModelEntryKey,
} from '../../config/model-entries.js';
import { openConfigStore, type ConfigStore } from '../../config/store.js';
import { readAllBytes, stripOneNewline } from '../../session/stdin.js';

// `gatechat config set|get|unset|list|path`. Usage problems are thrown as GatechatError (main
// prints them, exit 2); the return value is the exit code of a normal outcome. `get` of a key that
// is not set prints nothing and exits 0: `git config` exits 1 there, but SPEC §4 reserves exit 1
// for internal errors, and no stored value is ever the empty string, so
// `[ -n "$(gatechat config get model)" ]` is the test for "is it set". An unset key is a normal
// answer for a script reading an optional key, not a problem to report on its stderr; only a
// person looking at a terminal gets a note saying so (stdout a TTY).

export type ConfigAction = 'set' | 'get' | 'unset' | 'list' | 'path';

export interface ConfigCommandOptions {
  profile?: string;
  /** Act on this model's entry (SPEC §11) instead of a plain key. */
  model?: string;
  /** Act on this MCP server's entry (SPEC §15). */
  mcp?: string;
  showSecrets?: boolean;
  json?: boolean;
}

export interface ConfigIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

const ENV_OVERRIDES = [
  ['GATECHAT_BASE_URL', 'base-url'],
  ['GATECHAT_API_KEY', 'api-key'],
  ['GATECHAT_MODEL', 'model'],
  ['GATECHAT_PROFILE', 'default-profile'],
] as const;

export async function runConfigCommand(action: ConfigAction, args: string[], opts: ConfigCommandOptions, io: ConfigIo): Promise<number> {
  const store = openConfigStore();
  const profile = opts.profile === undefined ? undefined : parseProfileName(opts.profile, '--profile');
  if (opts.mcp !== undefined && (action === 'set' || action === 'get' || action === 'unset')) {
    const { runMcpConfigCommand } = await import('./config-mcp.js');
    return runMcpConfigCommand(store, action, args, opts.mcp, profile, io, Boolean(opts.showSecrets));
  }
  if (opts.model !== undefined && action !== 'path') {
    return runModelEntryCommand(store, action, args, parseModelName(opts.model, '--model'), profile, opts, io);
  }
  switch (action) {
    case 'path':
      io.stdout.write(`${store.path}\n`);
      return ExitCode.ok;
    case 'set':
      return setKey(store, args, profile, io);
    case 'get':
      return getKey(store, args, profile, opts, io);
    case 'unset':
      return unsetKey(store, args, profile, io);
    case 'list':
      return profile === undefined ? listKeys(store, opts, io) : listProfile(store, profile, opts, io);
    default: {
      const never: never = action;
      throw new UsageError(`config: unknown action ${JSON.stringify(never)}`);
    }
  }
}

function keyArg(action: ConfigAction, args: string[], profile: string | undefined): TopLevelKey {
  const key = args[0];
  if (key === undefined) throw new UsageError(`config ${action}: which key? (valid keys: ${KEY_NAMES.join(', ')})`);
  const spec = keySpec(key);
  if (!spec) throw unknownKeyError(key);
  if (spec.topLevelOnly && profile !== undefined) {
    throw new UsageError(`config ${action} ${key}: ${key} is a top-level setting; drop --profile`);
  }
  return spec.key;
}

function knownProfiles(file: ConfigFile): string[] {
  return Object.keys(file.profiles ?? {});
}

async function setKey(store: ConfigStore, args: string[], profile: string | undefined, io: ConfigIo): Promise<number> {
  const key = keyArg('set', args, profile);
  if (args.length > 2) {
    throw new UsageError(`config set ${key}: expected one value, got ${args.length - 1} (quote a value that has spaces)`);
  }
  let raw = args[1];
  if (key === 'api-key') {
    if (raw === undefined) {
      raw = await readSecret(io);
    } else {
      io.stderr.write(
        'gatechat: warning: a key typed on the command line may be kept in your shell history; ' +
          'next time run `gatechat config set api-key` with no value (it reads stdin or prompts)\n',
      );
    }
  }
  if (raw === undefined) throw new UsageError(`config set ${key}: missing value`);
  const parsed = keySpec(key)!.parse(raw, key);

  if (key === 'headers') {
    // `config set headers "X-A: 1"` adds (or replaces, case-insensitively) one header.
    const [name, value] = parsed as [string, string];
    const stored = store.get('headers', profile);
    const headers = stored === undefined ? {} : (checkStoredValue('headers', stored, 'config headers') as Record<string, string>);
    const next = Object.fromEntries(Object.entries(headers).filter(([n]) => n.toLowerCase() !== name.toLowerCase()));
    await store.set('headers', { ...next, [name]: value }, profile);
    return ExitCode.ok;
  }
  if (key === 'default-profile') {
    const known = knownProfiles(store.snapshot());
    if (!known.includes(parsed as string)) {
      throw new UsageError(
        `default-profile: no profile named ${JSON.stringify(parsed)} (known profiles: ${known.join(', ') || 'none'}; ` +
          `create it first with: gatechat config set --profile ${parsed as string} base-url …)`,
      );
    }
  }
  await store.set(key, parsed, profile);
  if (key === 'api-key') io.stderr.write(`gatechat: api-key saved (${maskSecret(parsed as string)})${profile ? ` in profile ${profile}` : ''}\n`);
  return ExitCode.ok;
}

/** `get` of an unset key: nothing on stdout, exit 0; the note only for a person at a terminal. */
function notSet(io: ConfigIo, note: string): number {
  if (io.stdout.isTTY) io.stderr.write(`gatechat: ${note}\n`);
  return ExitCode.ok;
}

function getKey(store: ConfigStore, args: string[], profile: string | undefined, opts: ConfigCommandOptions, io: ConfigIo): number {
  const key = keyArg('get', args, profile);
  const file = store.snapshot();
  if (profile !== undefined && !knownProfiles(file).includes(profile)) {
    throw new UsageError(`--profile: no profile named ${JSON.stringify(profile)} (known profiles: ${knownProfiles(file).join(', ') || 'none'})`);
  }
  // The value stored in that scope only (what set/unset act on); `config list` shows inheritance.
  const value = store.get(key, profile);
  if (value === undefined) return notSet(io, `${key} is not set${profile ? ` in profile ${profile}` : ''}`);
  const shown = displayValue(key, value, Boolean(opts.showSecrets));
  io.stdout.write(opts.json ? `${JSON.stringify(shown)}\n` : formatValue(shown, '\n'));
  return ExitCode.ok;
}

async function unsetKey(store: ConfigStore, args: string[], profile: string | undefined, io: ConfigIo): Promise<number> {
  const key = keyArg('unset', args, profile);
  const headerName = args[1];
  if (headerName !== undefined && key !== 'headers') throw new UsageError(`config unset ${key}: takes no value`);
  let removed: boolean;
  if (headerName !== undefined) {
    // `config unset headers X-A` removes one header; `config unset headers` removes them all.
    const stored = store.get('headers', profile);
    const headers = stored === undefined ? {} : (checkStoredValue('headers', stored, 'config headers') as Record<string, string>);
    const rest = Object.fromEntries(Object.entries(headers).filter(([n]) => n.toLowerCase() !== headerName.toLowerCase()));
    removed = Object.keys(rest).length !== Object.keys(headers).length;
    if (removed) await (Object.keys(rest).length ? store.set('headers', rest, profile) : store.unset('headers', profile));
  } else {
    removed = await store.unset(key, profile);
  }
  // Idempotent like `rm -f`: nothing to remove is not a failure, but say so.
  if (!removed) io.stderr.write(`gatechat: ${headerName ? `header ${headerName}` : key} was not set${profile ? ` in profile ${profile}` : ''}\n`);
  return ExitCode.ok;
}

type Source = 'profile' | 'config' | 'default';
type Listing = Record<string, { value: unknown; source: Source }>;

/** Effective values of one scope: a profile inherits the top level, both fall back to defaults. */
function effective(file: ConfigFile, profile: string | undefined, showSecrets: boolean): Listing {
  const scope = profile === undefined ? undefined : (file.profiles?.[profile] as Record<string, unknown>);
  const top = file as Record<string, unknown>;
  const listing: Listing = {};
  for (const key of KEY_NAMES) {
    if (key === 'default-profile' && profile !== undefined) continue;
    const [value, source]: [unknown, Source] =
      scope?.[key] !== undefined ? [scope[key], 'profile'] : top[key] !== undefined ? [top[key], 'config'] : [KEY_DEFAULTS[key as keyof typeof KEY_DEFAULTS], 'default'];
    if (value !== undefined) listing[key] = { value: displayValue(key, value, showSecrets), source };
  }
  return listing;
}

function listKeys(store: ConfigStore, opts: ConfigCommandOptions, io: ConfigIo): number {
  const file = store.snapshot();
  const showSecrets = Boolean(opts.showSecrets);
  const profiles = knownProfiles(file);
  const overrides = ENV_OVERRIDES.filter(([name]) => process.env[name]).map(([name, key]) => ({ variable: name, key }));
  if (opts.json) {
    const result = {
      path: store.path,
      'default-profile': file['default-profile'] ?? null,
      base: effective(file, undefined, showSecrets),
      profiles: Object.fromEntries(profiles.map((name) => [name, effective(file, name, showSecrets)])),
      models: file.models ?? {},
      profile_models: Object.fromEntries(profiles.map((name) => [name, file.profiles?.[name]?.models ?? {}])),
      env_overrides: overrides,
    };
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return ExitCode.ok;
  }
  const lines = [`# ${store.path}`];
  const section = (listing: Listing, inheritedFrom: Source) => lines.push(...listingLines(listing, inheritedFrom));
  section(effective(file, undefined, showSecrets), 'profile');
  lines.push(...entrySections(file, (model) => `[model ${model}]`));
  for (const name of profiles) {
    lines.push('', `[profile ${name}]${file['default-profile'] === name ? '  (default-profile)' : ''}`);
    section(effective(file, name, showSecrets), 'config');
    lines.push(...entrySections(file.profiles?.[name], (model) => `[profile ${name} · model ${model}]`));
  }
  for (const { variable, key } of overrides) lines.push(`# ${variable} is set in the environment and overrides ${key}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}

/** `config list --profile NAME`: that profile's effective values (inheriting the top level) and its model entries. */
function listProfile(store: ConfigStore, profile: string, opts: ConfigCommandOptions, io: ConfigIo): number {
  const file = store.snapshot();
  const known = knownProfiles(file);
  if (!known.includes(profile)) {
    throw new UsageError(`--profile: no profile named ${JSON.stringify(profile)} (known profiles: ${known.join(', ') || 'none'})`);
  }
  const listing = effective(file, profile, Boolean(opts.showSecrets));
  if (opts.json) {
    const result = { path: store.path, profile, default: file['default-profile'] === profile, settings: listing, models: file.profiles?.[profile]?.models ?? {} };
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return ExitCode.ok;
  }
  const lines = [`# ${store.path}`, `[profile ${profile}]${file['default-profile'] === profile ? '  (default-profile)' : ''}`];
  lines.push(...listingLines(listing, 'config'));
  lines.push(...entrySections(file.profiles?.[profile], (model) => `[profile ${profile} · model ${model}]`));
  io.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}

/** `key  value  (default)`: a value inherited from `inheritedFrom` says so. */
function listingLines(listing: Listing, inheritedFrom: Source): string[] {
  return Object.entries(listing).map(([key, { value, source }]) => {
    const note = source === 'default' ? '  (default)' : source === inheritedFrom ? '  (from top level)' : '';
    return `${key.padEnd(17)} ${formatValue(value, ', ')}${note}`;
  });
}

/** Strings as typed; headers as `Name: value` (the form `config set headers` takes). */
function formatValue(value: unknown, headerSeparator: string): string {
  if (typeof value === 'object' && value !== null) {
    const text = Object.entries(value).map(([n, v]) => `${n}: ${String(v)}`).join(headerSeparator);
    return headerSeparator === '\n' ? (text ? `${text}\n` : '') : text;
  }
  return headerSeparator === '\n' ? `${String(value)}\n` : String(value);
}

// ---- per-model entries: config set|get|unset|list --model <name> … ----

function runModelEntryCommand(
  store: ConfigStore,
  action: Exclude<ConfigAction, 'path'>,
  args: string[],
  name: string,
  profile: string | undefined,
  opts: ConfigCommandOptions,
  io: ConfigIo,
): Promise<number> | number {
  const where = `${profile ? ` in profile ${profile}` : ''}`;
  const entryKeyArg = (required: boolean): ModelEntryKey | undefined => {
    const key = args[0];
    if (key === undefined) {
      if (!required) return undefined;
      throw new UsageError(`config ${action} --model ${name}: which key? (valid keys: ${MODEL_ENTRY_KEY_NAMES.join(', ')})`);
    }
    return modelEntryKey(key);
  };
  switch (action) {
    case 'set': {
      const key = entryKeyArg(true)!;
      if (args.length !== 2) {
        throw new UsageError(`config set --model ${name} ${key}: expected one value, got ${args.length - 1} (quote a value that has spaces)`);
      }
      const value = parseModelEntryValue(key, args[1], key);
      if (key === 'model' && value === name) throw new UsageError(`model: an alias cannot point at itself (${name})`);
      return store.setModelKey(name, key, value, profile).then(() => ExitCode.ok);
    }
    case 'get': {
      const key = entryKeyArg(true)!;
      const value = storedEntry(profile === undefined ? store.snapshot() : store.snapshot().profiles?.[profile], name)?.[key];
      if (value === undefined) return notSet(io, `${key} is not set for model ${name}${where}`);
      io.stdout.write(opts.json ? `${JSON.stringify(value)}\n` : `${typeof value === 'object' ? JSON.stringify(value) : String(value)}\n`);
      return ExitCode.ok;
    }
    case 'unset': {
      if (args.length > 1) throw new UsageError(`config unset --model ${name}: takes one key (or none, to remove the whole entry)`);
      const key = entryKeyArg(false);
      return store.unsetModelKey(name, key, profile).then((removed) => {
        if (!removed) io.stderr.write(`gatechat: ${key ?? 'an entry'} was not set for model ${name}${where}\n`);
        return ExitCode.ok;
      });
    }
    case 'list': {
      const file = store.snapshot();
      if (profile !== undefined && !knownProfiles(file).includes(profile)) {
        throw new UsageError(`--profile: no profile named ${JSON.stringify(profile)} (known profiles: ${knownProfiles(file).join(', ') || 'none'})`);
      }
      const entry = storedEntry(profile === undefined ? file : file.profiles?.[profile], name);
      if (opts.json) io.stdout.write(`${JSON.stringify(entry ?? {}, null, 2)}\n`);
      else if (!entry) io.stderr.write(`gatechat: no entry for model ${name}${where}\n`);
      else io.stdout.write(entryLines(entry).join('\n') + '\n');
      return ExitCode.ok;
    }
    default: {
      const never: never = action;
      throw new UsageError(`config: unknown action ${JSON.stringify(never)}`);
    }
  }
}

/** `key  value` lines of one entry; options as compact JSON (the form `config set` takes). */
function entryLines(entry: Record<string, unknown>): string[] {
  return Object.entries(entry).map(([key, value]) => `${key.padEnd(17)} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
}

/** Every entry of one scope, for `config list`: `[model NAME]` sections. */
function entrySections(scope: ConfigScope | undefined, heading: (name: string) => string): string[] {
  const lines: string[] = [];
  for (const name of entryNames(scope)) {
    const entry = storedEntry(scope, name);
    if (entry) lines.push('', heading(name), ...entryLines(entry));
  }
  return lines;
}

/** The key from piped stdin, or a hidden prompt on a terminal: never from argv, never echoed. */
async function readSecret(io: ConfigIo): Promise<string> {
  if (!io.stdin.isTTY) {
    const bytes = await readAllBytes(io.stdin, 64 * 1024, () => {
      throw new UsageError('api-key: stdin holds more than 64 KiB; expected one key');
    });
    const text = stripOneNewline(bytes.toString('utf8'));
    if (!text.trim()) throw new UsageError('api-key: nothing on stdin (pipe the key in, or run this in a terminal to be prompted)');
    return text;
  }
  return promptHidden(io.stdin, io.stderr, 'API key (input hidden): ');
}

export function promptHidden(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream, label: string): Promise<string> {
  if (typeof stdin.setRawMode !== 'function') {
    return Promise.reject(new UsageError('api-key: cannot hide input on this terminal; pipe the key on stdin instead'));
  }
  stderr.write(label);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (settle: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      settle();
    };
    const cancelled = () => new GatechatError('cancelled: no key saved', ExitCode.interrupted);
    function onData(chunk: Buffer | string) {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') return finish(() => resolve(value));
        if (ch === '\u0003') return finish(() => reject(cancelled()));
        // Ctrl-D on an empty line gives up, as it does at a shell prompt.
        if (ch === '\u0004' && value === '') return finish(() => reject(cancelled()));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch === '\u0015') value = '';
        // An escape sequence (arrow keys …) arrives in one chunk: drop the rest of it.
        else if (ch === '\u001b') break;
        else if (ch >= ' ') value += ch;
      }
    }
    stdin.on('data', onData);
  });
}
