/**
 * Stopping a command and everything it started (SPEC §20, api-key-cmd at its time limit). The command
 * runs in gatechat's own process group, the terminal's foreground one, so that a password manager can
 * prompt on /dev/tty (a new session has no terminal; a background group is stopped by SIGTTIN when it
 * reads). So the group cannot be killed as a whole, and a daemon-style grandchild leaves any group
 * anyway: the processes are found by an environment variable every descendant inherits (a mark unique to
 * this run), and by parentage for one that cleared its environment.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** An environment variable the command was started with, its value unique to the run. */
export interface RunMark {
  name: string;
  value: string;
}

interface ProcessInfo {
  pid: number;
  ppid: number;
  marked: boolean;
  /** Dead, waiting to be reaped: signals still "succeed" on it, so it is never counted as alive. */
  zombie: boolean;
}

/** Linux: every process of this user, from /proc (another user's environ is unreadable: not ours). */
function fromProc(mark: RunMark): ProcessInfo[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const needle = `\u0000${mark.name}=${mark.value}\u0000`;
  const found: ProcessInfo[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name (field 2) is in parentheses and may hold spaces: fields after its last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      let marked = false;
      try {
        marked = `\u0000${readFileSync(`/proc/${name}/environ`, 'latin1')}`.includes(needle);
      } catch {
        // another user's process, or gone
      }
      found.push({ pid: Number(name), ppid: Number(ppid), marked, zombie: state === 'Z' });
    } catch {
      // gone since the listing
    }
  }
  return found;
}

/** Elsewhere (macOS, BSD): parentage from ps; a process that left the tree cannot be told by its mark. */
function fromPs(): ProcessInfo[] {
  try {
    const out = execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid=', '-o', 'stat='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .map(([pid, ppid, stat]) => ({ pid: Number(pid), ppid: Number(ppid), marked: false, zombie: (stat ?? '').startsWith('Z') }));
  } catch {
    return [];
  }
}

/** `root`'s live descendants and every live process carrying the mark (`root` too); never this process. */
function members(root: number, mark: RunMark): number[] {
  const all = fromProc(mark) ?? fromPs();
  const chosen = new Set<number>([root, ...all.filter((p) => p.marked).map((p) => p.pid)]);
  // Descendants of anything chosen, to a fixed point (a child listed before its parent is caught next round).
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!chosen.has(p.pid) && chosen.has(p.ppid)) {
        chosen.add(p.pid);
        grew = true;
      }
    }
  }
  chosen.delete(process.pid);
  const live = new Set(all.filter((p) => !p.zombie).map((p) => p.pid));
  return [...chosen].filter((pid) => live.has(pid));
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false; // gone, or not ours
  }
}

/**
 * Stops `root` and every process it started. Each round freezes what it finds (SIGSTOP: nothing forks
 * behind the scan), then kills it; rounds go on until one finds nothing alive, so a process forked while
 * the previous round ran is caught by the next.
 */
export function stopProcessTree(root: number, mark: RunMark): void {
  for (let round = 0; round < 20; round++) {
    const pids = members(root, mark).filter((pid) => signal(pid, 'SIGSTOP'));
    if (pids.length === 0) return;
    for (const pid of pids) signal(pid, 'SIGKILL');
  }
}
