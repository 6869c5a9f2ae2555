// The session's small helpers: shell mode's prompts, the models cache, --schema files, -a '!command'.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRequest, DESCRIBE_SYSTEM_PROMPT, shellSystemPrompt, userShell } from '../../src/session/shell-command.js';
import { cachedModelIds, cachedModelList, saveModelIds } from '../../src/session/models-cache.js';
import { readSchemaOption } from '../../src/session/schema-file.js';
import { commandHeading, runCommandInput } from '../../src/session/command-input.js';

const dir = mkdtempSync(join(tmpdir(), 'gatechat-session-small-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('shell mode prompts', () => {
  it('names the OS and the shell, adds -s after a blank line, and falls back to /bin/sh', () => {
    const prompt = shellSystemPrompt('darwin', '/usr/local/bin/zsh', '/home/u');
    expect(prompt).toMatch(/^You turn requests into shell commands\. Reply with exactly one command for macOS in zsh \(the working directory is \/home\/u\): /);
    expect(prompt).toMatch(/a command that prints why\.$/);
    expect(shellSystemPrompt('linux', '/bin/bash', '/', 'prefer GNU tools')).toMatch(/for Linux in bash .*\n\nprefer GNU tools$/s);
    expect(shellSystemPrompt('aix', '/bin/ksh', '/')).toContain('for aix in ksh');
    expect(userShell({ SHELL: '/bin/fish' })).toBe('/bin/fish');
    expect(userShell({ SHELL: '' })).toBe('/bin/sh');
    expect(userShell({})).toBe('/bin/sh');
    expect(describeRequest('ls -la')).toBe('Explain briefly what this command does:\n\nls -la');
    expect(DESCRIBE_SYSTEM_PROMPT).toMatch(/^You explain shell commands/);
  });
});

describe('models cache', () => {
  it('keeps the ids per base URL, all together for completion; missing or damaged is empty', () => {
    const cache = join(dir, 'cache');
    expect(cachedModelIds(cache)).toEqual([]);
    expect(cachedModelList('http://a/v1', cache)).toEqual({ ids: [], savedAt: null });
    const before = Date.now();
    saveModelIds('http://a/v1', ['m1', 'm2'], cache);
    saveModelIds('http://b/v1', ['m3'], cache);
    expect(cachedModelIds(cache)).toEqual(['m1', 'm2', 'm3']);
    const list = cachedModelList('http://a/v1', cache);
    expect(list.ids).toEqual(['m1', 'm2']);
    expect(list.savedAt).toBeGreaterThanOrEqual(before - 1000);
    writeFileSync(join(cache, 'models-cache.json'), JSON.stringify({ 'http://a/v1': { saved_at: 'never', ids: ['ok', 7] }, x: null }));
    expect(cachedModelIds(cache)).toEqual(['ok']);
    expect(cachedModelList('http://a/v1', cache)).toEqual({ ids: ['ok'], savedAt: null });
    for (const damaged of ['[1,2]', 'null', '{broken']) {
      writeFileSync(join(cache, 'models-cache.json'), damaged);
      expect(cachedModelIds(cache)).toEqual([]);
    }
  });
});

describe('readSchemaOption', () => {
  it('reads a schema file, else takes the text as a field list; names the option in errors', () => {
    const file = join(dir, 'book.json');
    writeFileSync(file, '{"type":"object","properties":{"title":{"type":"string"}}}');
    expect(readSchemaOption(file)).toEqual({ type: 'object', properties: { title: { type: 'string' } } });
    expect(readSchemaOption('title, year int')).toMatchObject({ required: ['title', 'year'] });
    // A directory is no schema file: the name is read as a field list.
    const sub = join(dir, 'schemas');
    mkdirSync(sub);
    expect(() => readSchemaOption(sub, 'line 3: schema')).toThrow(/^line 3: schema: /);
    expect(() => readSchemaOption('a b c d')).toThrow(/^--schema: cannot read the field/);
  });
});

describe('runCommandInput', () => {
  it("attaches what the command printed, headed by the command", async () => {
    expect(await runCommandInput("!printf 'one\\ntwo'")).toEqual({ kind: 'text', path: "$ printf 'one\\ntwo'", text: 'one\ntwo' });
    expect(commandHeading('ls')).toBe('$ ls');
  });

  it('refuses an empty command, a failure (with its last stderr line), a signal, binary output and a timeout', async () => {
    await expect(runCommandInput('!  ')).rejects.toMatchObject({ exitCode: 2, message: '-a !  : expected a command after !' });
    await expect(runCommandInput("!echo first >&2; printf 'last\\033[1m words\\n\\n' >&2; exit 3")).rejects.toThrow(
      "-a !echo first >&2; printf 'last\\033[1m words\\n\\n' >&2; exit 3: the command exited with status 3: last[1m words",
    );
    await expect(runCommandInput('!exit 1')).rejects.toThrow(/: the command exited with status 1$/);
    await expect(runCommandInput('!kill -9 $$')).rejects.toThrow(/: the command was killed by SIGKILL$/);
    await expect(runCommandInput("!printf '\\000\\001\\002\\377'")).rejects.toThrow(/: the output is not UTF-8 text$/);
    await expect(runCommandInput('!sleep 5', 200)).rejects.toThrow('-a !sleep 5: the command did not finish within 0.2 s (stopped)');
  });
});
