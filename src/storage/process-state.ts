import { readFileSync } from 'node:fs';

/**
 * What /proc says about a process (Linux only; null elsewhere or when it is gone). The command name
 * (field 2) may hold spaces and parentheses, so fields are counted from the last ')'.
 */
function procStatFields(pid: number): string[] | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The process's start time in clock ticks since boot: tells a reused pid from the original owner. */
export function startTimeOf(pid: number): string | null {
  return procStatFields(pid)?.[19] ?? null;
}

/**
 * Whether a process still runs. A zombie does not: it has exited and only waits for its parent to
 * reap it. Orphans are reaped by PID 1, and in some containers PID 1 does not reap at all, so
 * `kill(pid, 0)` alone would call a dead process alive forever. EPERM means alive, another user's.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return procStatFields(pid)?.[0] !== 'Z';
}
