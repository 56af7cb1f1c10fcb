/**
 * `archiver run` of a crawl that follows links starts its page thread
 * first thing, before bin.ts loads node's modules for the main thread
 * (builtins-first.ts) or sets V8's flags, and bin.ts sets them only once
 * that thread's modules are loaded (core/linked-signal.ts): the thread then
 * takes node's modules compiled, as the main thread does, instead of
 * compiling ~130 of them from source, and it is up while the main thread
 * still loads the CLI. run-command.ts takes the worker
 * (page-worker-start.ts takeFirstPageWorker); a run that never gets there
 * (a bad profile, a usage error) closes it or exits with it unreferenced.
 *
 * The command line is read as run-command.ts reads it; anything it would
 * refuse starts nothing here, and run-command.ts says what is wrong.
 */
import { startPageWorkerFirst } from '../crawl/page-worker-start.js';
import { parseCommandArgs } from './parse-options.js';
import { followsLinks, RUN_OPTIONS } from './run-options.js';

/**
 * How long bin.ts holds V8's flags back for the page thread's modules, at
 * most. They are loaded ~40-60 ms after the start, when the main thread
 * has loaded its own; on a machine busy elsewhere it can take longer, and
 * the thread then compiles what it has left, as before.
 */
export const LINKED_WAIT_MS = 150;

/** For `run`'s arguments (after `run`): the page thread started, and a wait for its modules (true once loaded); null when the run follows no links or its arguments are wrong. */
export function startPageThreadFirst(args: string[]): { awaitLinked: (ms: number) => boolean } | null {
  let file: string;
  try {
    const { values, positionals } = parseCommandArgs(args, RUN_OPTIONS, 'run');
    if (values.help === true || positionals.length !== 1) return null;
    file = positionals[0]!;
  } catch {
    return null;
  }
  return followsLinks(file) ? startPageWorkerFirst() : null;
}
