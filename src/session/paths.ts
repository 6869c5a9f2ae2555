import { chmodSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where conversations live: `GATECHAT_DATA_DIR`, else the platform's data dir (the same place
 * env-paths would pick, without conf's `-nodejs` suffix). Nothing is created here: the store
 * creates it, 0700, on its first write.
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.GATECHAT_DATA_DIR) return env.GATECHAT_DATA_DIR;
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'gatechat');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'gatechat', 'Data');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'gatechat');
}

/**
 * mkdir -p with 0700 for every directory it creates (conversations are private). A directory that
 * already existed keeps the mode its owner gave it.
 */
export function ensurePrivateDir(dir: string): void {
  const firstCreated = mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mode is filtered by the umask; an unusual umask (e.g. 0o277) must not leave it unusable or wider.
  if (firstCreated !== undefined && process.platform !== 'win32') chmodSync(dir, 0o700);
}
