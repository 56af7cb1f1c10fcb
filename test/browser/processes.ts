/**
 * Processes as /proc shows them, for the browser tests: the Chromium a
 * process started (its children named chromium), the process group each
 * leads, and whether any of a set of pids is still alive.
 */
import { readdir, readFile } from 'node:fs/promises';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  comm: string;
}

export async function processes(): Promise<ProcInfo[]> {
  const out: ProcInfo[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // Gone meanwhile.
    }
    // comm is in parentheses and may hold spaces; the fields after it are space-separated.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const rest = stat.slice(close + 2).split(' ');
    if (rest[0] === 'Z') continue; // A zombie has ended.
    out.push({ pid: Number(name), ppid: Number(rest[1]), pgid: Number(rest[2]), comm });
  }
  return out;
}

/** The Chromium browser processes `parent` started, with every process of their groups. */
export async function chromiumOf(parent: number): Promise<{ browsers: number[]; group: number[] }> {
  const all = await processes();
  const browsers = all.filter((p) => p.ppid === parent && p.comm.startsWith('chrom')).map((p) => p.pid);
  const group = all.filter((p) => browsers.includes(p.pgid)).map((p) => p.pid);
  return { browsers, group };
}

/** Which of `pids` are still alive (zombies count as ended). */
export async function alive(pids: readonly number[]): Promise<number[]> {
  const live = new Set((await processes()).map((p) => p.pid));
  return pids.filter((p) => live.has(p));
}
