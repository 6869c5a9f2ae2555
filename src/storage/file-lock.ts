import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { createOwnFile, unlinkQuietly } from './own-files.js';
import { isRunning, startTimeOf } from './process-state.js';
import { errnoOf, StorageError } from './storage-error.js';

// A lock file beside the file it guards (`config.json.lock`), as git does with `index.lock`: created
// exclusively, holding who owns it. It guards a read-modify-write (config set), a compaction (input
// history) or a whole run (a batch's --output). A holder killed with SIGKILL leaves it behind; the
// next process sees that its pid is gone and takes the lock over, so nothing stays wedged.

interface Owner {
  pid: number;
  host: string;
  /** The process's start time (Linux), so a pid reused by another program is not taken for the holder. */
  started: string | null;
  /** Tells this holding apart from an earlier one by the same pid. */
  nonce: string;
}

export interface FileLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

export interface LockOptions {
  /** How long to wait for a live holder; 0: refuse at once. */
  waitMs: number;
  /** What the lock guards, for the message when it is held: `the config file /…/config.json`. */
  what: string;
  hint?: string;
}

/** Wait between attempts while another process holds the lock. */
const RETRY_MS = 15;
/** A lock file that stays empty or unreadable this long was left by a process that died creating it. */
const UNREADABLE_STALE_MS = 10_000;

/** Takes `${target}.lock`, waiting up to `waitMs` for a live holder. Throws StorageError when it stays held. */
export function lockFile(target: string, options: LockOptions): FileLock {
  const path = `${target}.lock`;
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const mine = tryCreate(path);
    if (mine) return held(path, mine);
    const owner = readOwner(path);
    if (owner === 'gone') continue;
    if (isStale(path, owner)) {
      breakStale(path, owner);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = owner === 'unreadable' ? 'another process' : `another gatechat (pid ${owner.pid}${owner.host !== hostname() ? ` on ${owner.host}` : ''})`;
      throw new StorageError(`${options.what} is in use by ${who}; its lock is ${path}`, options.hint, 'ELOCKED');
    }
    sleepSync(RETRY_MS + Math.floor(Math.random() * RETRY_MS));
  }
}

/**
 * Creates the lock file with our owner record already in it (createOwnFile: a lock seen empty could not be
 * taken over until it aged); null when it exists. Other errors (EACCES, ENOSPC…) are thrown.
 */
function tryCreate(path: string): Owner | null {
  const owner: Owner = { pid: process.pid, host: hostname(), started: startTimeOf(process.pid), nonce: randomBytes(8).toString('hex') };
  try {
    createOwnFile(path, `${JSON.stringify(owner)}\n`);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return null;
    throw error;
  }
  return owner;
}

function held(path: string, owner: Owner): FileLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    // Only our own: if it was broken and taken by another process meanwhile, that one's stays.
    const now = readOwner(path);
    if (typeof now === 'object' && now.nonce === owner.nonce) unlinkQuietly(path);
  };
  // Every way out of the process that runs JavaScript releases it; SIGKILL leaves it stale.
  process.once('exit', release);
  return { path, release };
}

function readOwner(path: string): Owner | 'unreadable' | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return errnoOf(error) === 'ENOENT' ? 'gone' : 'unreadable';
  }
  try {
    const value = JSON.parse(text) as Partial<Owner>;
    if (Number.isInteger(value.pid) && typeof value.host === 'string' && typeof value.nonce === 'string') {
      return { pid: value.pid!, host: value.host, started: typeof value.started === 'string' ? value.started : null, nonce: value.nonce };
    }
  } catch {
    // Being written right now, or damaged: decided by its age below.
  }
  return 'unreadable';
}

function isStale(path: string, owner: Owner | 'unreadable'): boolean {
  if (owner === 'unreadable') {
    try {
      return Date.now() - statSync(path).mtimeMs > UNREADABLE_STALE_MS;
    } catch {
      return false;
    }
  }
  // A pid on another machine (a home directory over NFS) cannot be checked: it is taken as alive.
  if (owner.host !== hostname()) return false;
  if (!isRunning(owner.pid)) return true;
  const started = startTimeOf(owner.pid);
  return owner.started !== null && started !== null && started !== owner.started;
}

/**
 * Removes a stale lock so that exactly one waiter does it: under a second, short-lived lock the owner
 * is read again and the file removed only if it is still the dead one (two waiters that both saw it
 * dead would otherwise remove each other's fresh lock).
 */
function breakStale(path: string, seen: Owner | 'unreadable'): void {
  const breaker = `${path}.break`;
  const mine = tryCreate(breaker);
  if (!mine) {
    // Another process is breaking it now; a breaker killed midway leaves its file, stale just the same.
    const other = readOwner(breaker);
    if (other !== 'gone' && isStale(breaker, other)) unlinkQuietly(breaker);
    sleepSync(RETRY_MS);
    return;
  }
  try {
    const now = readOwner(path);
    const same = seen === 'unreadable' ? now === 'unreadable' : typeof now === 'object' && now.nonce === seen.nonce;
    if (same) unlinkQuietly(path);
  } finally {
    unlinkQuietly(breaker);
  }
}

/** Field 22 of /proc/<pid>/stat (clock ticks since boot); null where there is no /proc. */
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** The locks guard a few milliseconds of synchronous file work, so waiting for one blocks too. */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
