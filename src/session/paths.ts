import { join } from 'node:path';
import { homeDirectory } from '../config/home.js';

/**
 * Where conversations live: `GATECHAT_DATA_DIR`, else the platform's data dir (the same place
 * env-paths would pick, without conf's `-nodejs` suffix). Nothing is created here: the store
 * creates it, 0700, on its first write.
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.GATECHAT_DATA_DIR) return env.GATECHAT_DATA_DIR;
  const home = homeDirectory();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'gatechat');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'gatechat', 'Data');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'gatechat');
}
