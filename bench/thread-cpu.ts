/**
 * CPU seconds per thread of a running child process, for the crawl bench's
 * "where the time goes" line: the main thread, archiver's named worker
 * threads (src/core/thread-name.ts) and node's own helpers (V8's GC and
 * compiler threads, libuv's pool — all called "node"). Linux only: it polls
 * /proc/<pid>/task/<tid>/stat every `intervalMs` and keeps each thread's
 * last reading, so a thread that exits loses at most its last interval.
 * It also reads the process's total at each poll, so the CPU spent up to a
 * moment can be estimated (cpuAt). Elsewhere it reports nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/…/stat (USER_HZ, 100 on every Linux build we run on). */
const TICKS_PER_SEC = 100;

export interface ThreadCpu {
  /** CPU seconds by thread group: "main", each worker thread's name, "node helpers". */
  byGroup: Map<string, number>;
  /** The process's CPU seconds so far (all its threads), at its start (0) and at each poll: [ms since the epoch, seconds]. */
  timeline: [atMs: number, secs: number][];
}

/**
 * The process's CPU seconds at `ms` (ms since the epoch), taken as growing
 * evenly between the two polls around it (after the last poll: the last
 * reading). With polls 100 ms apart on a process that keeps both cores
 * busy, that is within a few tens of ms of CPU.
 */
export function cpuAt(timeline: readonly (readonly [number, number])[], ms: number): number {
  let before: readonly [number, number] = [-Infinity, 0];
  for (const point of timeline) {
    if (point[0] > ms) {
      const [t0, s0] = before;
      const [t1, s1] = point;
      return t0 === -Infinity ? 0 : s0 + ((s1 - s0) * (ms - t0)) / (t1 - t0);
    }
    before = point;
  }
  return before[1];
}

export interface ThreadCpuWatch {
  stop(): ThreadCpu;
}

/** Watch the process `pid`, or (when `viaParent`) the first child of `pid`, e.g. the command under /usr/bin/time. */
export function watchThreadCpu(pid: number, viaParent: boolean, intervalMs = 100): ThreadCpuWatch {
  const last = new Map<number, { name: string; secs: number }>();
  const timeline: [number, number][] = [];
  let target: number | null = viaParent ? null : pid;
  const poll = (): void => {
    target ??= firstChild(pid);
    if (target === null) return;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${target}/task`);
    } catch {
      return;
    }
    for (const t of tids) {
      const reading = readStat(`/proc/${target}/task/${t}/stat`);
      if (reading !== null) last.set(Number(t), reading);
    }
    // The process's total: its threads' CPU, the exited ones' included.
    const total = readStat(`/proc/${target}/stat`);
    if (total !== null) timeline.push([Date.now(), total.secs]);
  };
  // Just started: no CPU yet.
  timeline.push([Date.now(), 0]);
  const timer = setInterval(poll, intervalMs);
  poll();
  return {
    stop(): ThreadCpu {
      clearInterval(timer);
      const byGroup = new Map<string, number>();
      // Threads are only read once the target is known.
      const main = target;
      if (main !== null) {
        for (const [tid, { name, secs }] of last) {
          const group = threadGroup(tid, main, name);
          byGroup.set(group, (byGroup.get(group) ?? 0) + secs);
        }
      }
      return { byGroup, timeline };
    },
  };
}

/**
 * The group a thread's CPU counts in: "main" (the process's first thread),
 * a named worker thread's name (src/core/thread-name.ts), or "node helpers"
 * (V8's GC and compiler threads and libuv's pool, all called node).
 */
export function threadGroup(tid: number, pid: number, comm: string): string {
  return tid === pid ? 'main' : comm === 'node' ? 'node helpers' : comm;
}

function firstChild(pid: number): number | null {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}

/** Name and CPU seconds from a stat file: a thread's (/proc/<pid>/task/<tid>/stat) or a whole process's (/proc/<pid>/stat). */
function readStat(file: string): { name: string; secs: number } | null {
  try {
    const stat = readFileSync(file, 'utf8');
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    // Fields after "(comm) ": state is the 1st, utime the 12th, stime the 13th.
    const fields = stat.slice(close + 2).split(' ');
    return { name, secs: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SEC };
  } catch {
    return null;
  }
}

/** "main 8.8 s, arch-capture 5.1 s, …" in a stable order: main first, then by CPU. */
export function formatThreadCpu(cpu: Pick<ThreadCpu, 'byGroup'>): string {
  const rows = [...cpu.byGroup].sort((a, b) => (a[0] === 'main' ? -1 : b[0] === 'main' ? 1 : b[1] - a[1]));
  return rows.map(([group, secs]) => `${group} ${secs.toFixed(1)} s`).join(', ');
}
