/**
 * Batch lines name files (SPEC §20): a JSONL file someone sent must not be able to attach
 * `~/.config/gatechat/config.json` and send the key to the gateway and into the output. Every path a
 * line reads must resolve — real path, after symlinks — inside one root: the current directory, or
 * `--attach-root <dir>` (`/` allows every path).
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { UsageError } from '../exit-codes.js';

export interface AttachRoot {
  /** The root's real path. */
  real: string;
  /** How the refusal names it: `the current directory /work` or `--attach-root docs`. */
  label: string;
}

/** The root a batch's lines attach from; an `--attach-root` that is no directory is a usage error. */
export function openAttachRoot(option: string | undefined, cwd = process.cwd()): AttachRoot {
  if (option === undefined) return { real: realpathSync.native(cwd), label: `the current directory ${cwd}` };
  let real: string;
  try {
    real = realpathSync.native(resolve(cwd, option));
  } catch (error) {
    throw new UsageError(`--attach-root: cannot use ${option}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message}`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`--attach-root: ${option} is not a directory`);
  return { real, label: `--attach-root ${option}` };
}

/**
 * Where `path` really leads, as the file system will open it: the OS's realpath (Node's own resolves
 * `link/..` by text first, which is not what a read does). A path that does not exist yet keeps its
 * text form: reading it fails with its own message, and outside the root it is refused like any other.
 */
function realTarget(path: string, cwd: string): string {
  const joined = isAbsolute(path) ? path : `${cwd}${sep}${path}`;
  try {
    return realpathSync.native(joined);
  } catch {
    return resolve(joined);
  }
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The refusal for the first of `paths` that leads outside `root`, or null when all stay inside. */
export function outsideRoot(paths: readonly string[], root: AttachRoot, field: string, cwd = process.cwd()): string | null {
  const outside = paths.find((path) => !inside(root.real, realTarget(path, cwd)));
  return outside === undefined ? null : `"${field}": ${outside} is outside ${root.label}; pass --attach-root <dir> to allow it`;
}
