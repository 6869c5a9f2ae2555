// SPEC §10: the piped path must not load Ink, React or the Markdown renderer, and --version must not
// load the HTTP stack. A module loader hook records every module the built binary loads.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { makeUserDirs, runCli } from '../helpers/cli.js';

let gateway: RunningGateway;
const user = makeUserDirs();
const hook = join(user.home, 'record-loads.mjs');

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  writeFileSync(hook, 'export async function load(url, context, next) { process.stderr.write(`LOADED ${url}\\n`); return next(url, context); }\n');
});
afterAll(async () => {
  await gateway.close();
  user.cleanup();
});

/** The bundle's own files the run loaded (dist/cli.js and chunk names), from the loader hook. */
async function loadedBundleFiles(args: string[]): Promise<{ files: string[]; stdout: string; code: number | null }> {
  const result = await runCli(args, { env: { ...user.env(), NODE_OPTIONS: `--no-warnings --experimental-loader=${hook}` } });
  const files = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED ') && line.includes('/dist/'))
    .map((line) => line.slice(line.indexOf('/dist/') + 1));
  return { files, stdout: result.stdout, code: result.code };
}

describe('what each path loads', () => {
  it('a piped one-shot answer loads no Ink, React or Markdown code', async () => {
    const { files, stdout, code } = await loadedBundleFiles(['--base-url', `${gateway.url}/v1`, '-m', 'echo', '--no-save', 'hello']);
    expect(code).toBe(0);
    expect(stdout).toBe('hello\n');
    expect(files).toContain('dist/cli.js');
    expect(files.some((f) => f.includes('one-shot'))).toBe(true);
    expect(files.filter((f) => /\/(ink|markdown|interactive|devtools)-/.test(f))).toEqual([]);
  });

  it('--version loads only the entry chunk graph, not the request path', async () => {
    const { files, stdout } = await loadedBundleFiles(['--version']);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(files.filter((f) => /\/(one-shot|ink|markdown|server)-/.test(f))).toEqual([]);
  });

  it('the hook does report chunks loaded by dynamic import (so the checks above can fail)', async () => {
    const { files, stdout } = await loadedBundleFiles(['demo', '--no-save', 'hi']);
    expect(stdout).toBe('hi\n');
    expect(files.some((f) => /\/server-/.test(f))).toBe(true);
    expect(files.some((f) => /\/demo-/.test(f))).toBe(true);
  });
});
