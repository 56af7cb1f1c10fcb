/**
 * Ends a process that npm started when npm goes away. `npx archiver serve`
 * runs npm exec → sh → node, and npm does not pass a kill on: killing the
 * npx process left the console (or replay, or the demo web) serving with no
 * terminal to stop it (issue 28). When the parent dies the process is
 * re-parented, so its ppid changes; that is checked every second and taken
 * as a SIGTERM, which each command already handles (a crawl stops cleanly,
 * a server closes). Only under npm (npm sets `npm_command`): a process
 * started with `nohup archiver … &` is meant to outlive its shell.
 */

/** How often the parent is looked at. */
const WATCH_EVERY_MS = 1000;

export interface ParentWatchOptions {
  env: NodeJS.ProcessEnv;
  /** The current parent pid (read anew each time: it changes when the parent dies). */
  ppid: () => number;
  /** The parent pid when the process started (default: now). */
  first?: number;
  /** What to do once the parent is gone (the entry point sends this process SIGTERM). */
  onGone: () => void;
  everyMs?: number;
}

/** Starts watching when npm started this process; returns how to stop watching. */
export function watchParentUnderNpm(opts: ParentWatchOptions): () => void {
  if (opts.env['npm_command'] === undefined) return () => {};
  // Not "a parent of 1 means gone": in a container npm may be pid 1 and the parent itself.
  const first = opts.first ?? opts.ppid();
  const timer = setInterval(() => {
    if (opts.ppid() === first) return;
    clearInterval(timer);
    opts.onGone();
  }, opts.everyMs ?? WATCH_EVERY_MS);
  // Never the reason the process stays alive.
  timer.unref();
  return () => clearInterval(timer);
}
