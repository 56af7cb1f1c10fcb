/**
 * The slack a shared crawl adds to every politeness delay, grown with the
 * machine's load. A crawler ends a fetch when the body is in; the server
 * logs the response's end after its write returns, and on a loaded
 * machine the write that wakes the crawler often puts the server off the
 * CPU until its turn comes round again (35 ms seen with two busy loops on
 * two cores): the gap the server measures is then shorter than the one the
 * crawler left by that much. The run queue says how long that wait is
 * likely to be, so the slack is 10 ms on an idle machine, plus 15 ms for
 * each runnable process per CPU beyond one (1-minute load average), up to
 * 50 ms in all. Read at most once a second (one cheap syscall).
 */
import os from 'node:os';

export const BASE_SLACK_MS = 10;
export const MAX_SLACK_MS = 50;
const PER_EXCESS_RUNNABLE_MS = 15;

/** The slack for a given load per CPU (pure, for tests). */
export function slackForLoadMs(loadPerCpu: number): number {
  const excess = Math.max(0, loadPerCpu - 1);
  return Math.min(MAX_SLACK_MS, Math.round(BASE_SLACK_MS + PER_EXCESS_RUNNABLE_MS * excess));
}

/** A slack source reading this machine's load, cached for a second. */
export function machineLoadSlack(now: () => number = Date.now): () => number {
  const cpus = Math.max(1, os.availableParallelism());
  let at = -Infinity;
  let slack = BASE_SLACK_MS;
  return () => {
    const t = now();
    if (t - at >= 1000) {
      at = t;
      slack = slackForLoadMs(os.loadavg()[0]! / cpus);
    }
    return slack;
  };
}
