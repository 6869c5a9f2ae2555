import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, fstatSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small tmpfs of its own, for what only a real file system can show: a full disk (ENOSPC) and a
 * read-only one (EROFS). Mounting needs root (or CAP_SYS_ADMIN); elsewhere (most CI runners) it is
 * `{ skip: reason }` and the test says why it did not run.
 */
export interface Tmpfs {
  dir: string;
  /** Fills the file system so that only `freeBytes` (rounded down to whole pages) stay free. */
  fill(freeBytes?: number): void;
  remountReadOnly(): void;
  unmount(): void;
}

export function mountTmpfs(sizeKiB: number): Tmpfs | { skip: string } {
  if (process.platform !== 'linux') return { skip: 'a tmpfs needs Linux' };
  if (process.getuid?.() !== 0) return { skip: 'mounting a tmpfs needs root (run the suite as root, e.g. in a container, to cover it)' };
  const dir = mkdtempSync(join(tmpdir(), 'gatechat-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `mount -t tmpfs is not permitted here: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}` };
  }
  const filler = join(dir, '.filler');
  return {
    dir,
    fill(freeBytes = 0) {
      const fd = openSync(filler, 'a');
      try {
        const block = Buffer.alloc(4096);
        for (;;) {
          try {
            if (writeSync(fd, block) < block.length) break;
          } catch {
            break; // ENOSPC: full
          }
        }
        const page = 4096;
        const size = fstatSync(fd).size;
        ftruncateSync(fd, Math.max(0, Math.floor((size - freeBytes) / page) * page));
      } finally {
        closeSync(fd);
      }
    },
    remountReadOnly() {
      execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' });
    },
    unmount() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Root passes every permission check: a test of EACCES runs the binary as nobody instead. Nobody must be
 * able to run this Node, which it cannot when Node lives under root's home (`npx -p node@22` puts it in
 * /root/.npm): then `{ skip: reason }`.
 */
export function unprivilegedUser(): { uid: number; gid: number } | Record<string, never> | { skip: string } {
  if (process.getuid?.() !== 0) return {};
  const nobody = { uid: 65534, gid: 65534 };
  const probe = spawnSync(process.execPath, ['-e', '0'], { ...nobody, stdio: 'ignore' });
  if (probe.error || probe.status !== 0) return { skip: `user nobody cannot run ${process.execPath} (${probe.error?.message ?? `exit ${probe.status}`})` };
  return nobody;
}
