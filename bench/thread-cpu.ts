/**
 * CPU seconds per thread of a running child process, for the crawl bench's
 * "where the time goes" line: the main thread, archiver's named worker
 * threads (src/core/thread-name.ts) and node's own helpers (V8's GC and
 * compiler threads, libuv's pool — all called "node"). Linux only: it polls
 * /proc/<pid>/task/<tid>/stat every `intervalMs` and keeps each thread's
 * last reading, so a thread that exits loses at most its last interval.
 * Elsewhere it reports nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/…/stat (USER_HZ, 100 on every Linux build we run on). */
const TICKS_PER_SEC = 100;

export interface ThreadCpu {
  /** CPU seconds by thread group: "main", each worker thread's name, "node helpers". */
  byGroup: Map<string, number>;
}

export interface ThreadCpuWatch {
  stop(): ThreadCpu;
}

/** Watch the process `pid`, or (when `viaParent`) the first child of `pid`, e.g. the command under /usr/bin/time. */
export function watchThreadCpu(pid: number, viaParent: boolean, intervalMs = 100): ThreadCpuWatch {
  const last = new Map<number, { name: string; secs: number }>();
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
      const reading = readThread(target, Number(t));
      if (reading !== null) last.set(Number(t), reading);
    }
  };
  const timer = setInterval(poll, intervalMs);
  poll();
  return {
    stop(): ThreadCpu {
      clearInterval(timer);
      const byGroup = new Map<string, number>();
      for (const [tid, { name, secs }] of last) {
        const group = tid === target ? 'main' : name === 'node' ? 'node helpers' : name;
        byGroup.set(group, (byGroup.get(group) ?? 0) + secs);
      }
      return { byGroup };
    },
  };
}

function firstChild(pid: number): number | null {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}

function readThread(pid: number, tid: number): { name: string; secs: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
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
export function formatThreadCpu(cpu: ThreadCpu): string {
  const rows = [...cpu.byGroup].sort((a, b) => (a[0] === 'main' ? -1 : b[0] === 'main' ? 1 : b[1] - a[1]));
  return rows.map(([group, secs]) => `${group} ${secs.toFixed(1)} s`).join(', ');
}
