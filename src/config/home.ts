import { homedir } from 'node:os';

/**
 * `os.homedir()`, without loading node:os where the answer is in the environment. On POSIX, libuv's
 * uv_os_homedir returns `$HOME` as it is whenever it is set and non-empty, and only otherwise asks the
 * password database; Windows reads USERPROFILE and others, so node:os answers there. node:os (its
 * binding and module, ~0.2 ms) is then loaded only when a conversation is locked for saving (its
 * hostname, storage/file-lock.ts): a run that saves nothing never loads it (scripts/build-plugins.mjs
 * loads it on first use). Reads the process's own environment, as os.homedir() does, whatever `env` a
 * caller resolves its other variables from.
 */
export function homeDirectory(): string {
  if (process.platform !== 'win32') {
    const home = process.env.HOME;
    if (home) return home;
  }
  return homedir();
}
