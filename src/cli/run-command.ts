/**
 * `archiver run <profile>`: load and validate the profile with the flags
 * that override it, and crawl with SIGINT/SIGTERM wired to a graceful then
 * hard stop (crawl-signals.ts), with or without the console. What a start
 * may do with the job (--fresh, a finished job left alone, --node, what a
 * store refuses) is Crawl.start's, as for every other way a crawl starts.
 */
import path from 'node:path';
import { loadProfile } from '../config/load-profile.js';
import { UsageError } from '../core/errors.js';
import type { ConsoleServer } from '../console/console-server.js';
import type { CrawlStartOptions } from '../crawl/crawl.js';
import { JobFinishedError } from '../crawl/job-finished.js';
import type { CrawlSummary } from '../crawl/reports.js';
import type { PageWorker } from '../crawl/page-worker-start.js';
import type { Profile } from '../config/profile.js';
import { runHelp } from './help.js';
import type { CliIo } from './io.js';
import { parseCommandArgs } from './parse-options.js';
import { followsLinks, RUN_OPTIONS } from './run-options.js';
import { ExitCode } from './exit-codes.js';

/** Command-line overrides of the limits people change per run: flag → the profile's `limits` field, and how a value is read. */
const LIMIT_FLAGS = {
  'max-pages': { field: 'maxPages', what: 'a whole number of URIs ≥ 0' },
  'max-bytes': { field: 'maxBytes', what: 'a whole number of bytes ≥ 0' },
  'max-duration': { field: 'maxDurationSec', what: 'a whole number of seconds ≥ 0' },
} as const;

export interface RunMainOptions {
  /** With --console: called once it listens (tests). */
  onConsole?: (server: ConsoleServer) => void;
  /** With --keep-console: resolves when the console should stop; default SIGINT or SIGTERM. */
  keepUntil?: Promise<void>;
}

export async function runMain(argv: string[], io: CliIo, opts: RunMainOptions = {}): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, RUN_OPTIONS, 'run');
  if (values.help) {
    io.stdout.write(runHelp);
    return ExitCode.ok;
  }
  if (positionals.length !== 1) throw new UsageError('run takes exactly one profile file (see archiver run --help)');
  const file = positionals[0]!;
  // Flags override the profile's JSON before it is validated, so they are checked like the profile.
  const patch = (json: Record<string, unknown>): void => {
    if (values.workers !== undefined) json['workers'] = wholeNumber('--workers', values.workers, 1, 'a whole number ≥ 1');
    for (const [flag, { field, what }] of Object.entries(LIMIT_FLAGS)) {
      const given = values[flag as keyof typeof LIMIT_FLAGS];
      if (given === undefined) continue;
      const limits = (typeof json['limits'] === 'object' && json['limits'] !== null ? json['limits'] : {}) as Record<string, unknown>;
      limits[field] = wholeNumber(`--${flag}`, given, 0, what);
      json['limits'] = limits;
    }
  };
  const wantsConsole = values.console === true;
  if (!wantsConsole && (values['console-port'] !== undefined || values['console-host'] !== undefined || values['keep-console'] === true)) {
    throw new UsageError('--console-port, --console-host and --keep-console go with --console');
  }
  // A crawl that follows links gets its page thread started first, before its profile is validated
  // and the crawl's own modules are loaded: the worker loads and warms up beside all that and takes
  // the seed warm (page-worker-start.ts). bin.ts started it already, before V8's flags
  // (page-thread-first.ts); else it starts here. What decides it is read off the raw JSON (followsLinks);
  // a profile that turns out to be bad or of one page has it closed (here, or by the `finally` below).
  const pageWorker = await pageWorkerFor(file);
  let loaded: Profile;
  try {
    loaded = await loadProfile(file, process.cwd(), (line) => void io.stderr.write(`${line}\n`), patch);
  } catch (err) {
    await pageWorker?.close();
    throw err;
  }
  // --store overrides the profile's `store` (level, or redis://HOST:PORT/DB for a crawl of several processes).
  const profile = values.store !== undefined ? { ...loaded, store: values.store } : loaded;
  // What Crawl.start is given, once.
  const start: CrawlStartOptions = {
    log: io.stderr,
    fresh: values.fresh === true,
    quiet: values.quiet === true,
    profileFile: file,
    ...(values.node !== undefined ? { node: values.node } : {}),
    ...(pageWorker !== undefined && profile.scope.maxHops > 0 ? { pageWorker } : {}),
  };
  try {
    let summary: CrawlSummary;
    if (wantsConsole) {
      // Loaded only here: a crawl without a console carries none of it.
      const { crawlWithConsole } = await import('./run-console.js');
      summary = await crawlWithConsole(profile, io, start, {
        portText: values['console-port'],
        hostText: values['console-host'],
        keep: values['keep-console'] === true,
        ...(opts.onConsole ? { onConsole: opts.onConsole } : {}),
        ...(opts.keepUntil ? { keepUntil: opts.keepUntil } : {}),
      });
    } else {
      const { crawlWithSignals } = await import('./crawl-signals.js');
      summary = await crawlWithSignals(profile, start);
    }
    return summary.status === 'ABORTED' ? ExitCode.interrupted : reportSeeds(summary, io);
  } catch (err) {
    // A job that ran to its end is left as it is: said, and no failure.
    if (err instanceof JobFinishedError) {
      io.stderr.write(`archiver: ${err.message}\n`);
      return ExitCode.ok;
    }
    throw err;
  } finally {
    // The crawl closed it if it started; a crawl that did not start leaves it to us.
    await pageWorker?.close();
  }
}

/** The page worker bin.ts started before V8's flags for this run (page-thread-first.ts), else one started now if the profile follows links. */
async function pageWorkerFor(file: string): Promise<PageWorker | undefined> {
  const { startPageWorker, takeFirstPageWorker } = await import('../crawl/page-worker-start.js');
  return takeFirstPageWorker() ?? (followsLinks(file) ? startPageWorker() : undefined);
}

function wholeNumber(flag: string, value: string, min: number, what: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} must be ${what}, got ${value}`);
  return n;
}

/**
 * Seeds that got no answer are named on stderr with why; when no seed got a
 * 2xx or 3xx, nothing was crawled: exit 5 (the reports, the index and the
 * WACZ of whatever was captured are written all the same).
 */
function reportSeeds(summary: CrawlSummary, io: CliIo): number {
  const failed = summary.seeds.filter((s) => s.status === null || s.status < 200 || s.status >= 400);
  for (const s of failed) io.stderr.write(`archiver: seed ${s.url} was not crawled: ${s.reason !== undefined ? `${s.reason} (${s.status})` : describeSeedStatus(s.status)}\n`);
  const reached = summary.seeds.some((s) => s.status !== null && s.status >= 200 && s.status < 400);
  if (summary.seeds.length > 0 && !reached) {
    io.stderr.write(`archiver: no seed could be crawled (see ${path.join(path.dirname(summary.warcDir), 'logs', 'crawl.log')})\n`);
    return ExitCode.nothingCrawled;
  }
  return ExitCode.ok;
}

function describeSeedStatus(status: number | null): string {
  if (status === null) return 'never reached (out of scope, or the crawl stopped first)';
  if (status >= 400) return `HTTP ${status}`;
  return FETCH_STATUS_NAMES[status] ?? `status ${status}`;
}

const FETCH_STATUS_NAMES: Readonly<Record<number, string>> = Object.freeze({
  [-1]: 'DNS lookup failed (-1)',
  [-2]: 'connection refused or failed (-2)',
  [-3]: 'connection lost (-3)',
  [-4]: 'timed out (-4)',
  [-5]: 'runtime error (-5)',
  [-7]: 'unfetchable URL (-7)',
  [-61]: 'robots.txt unavailable (-61)',
  [-9998]: 'forbidden by robots.txt (-9998)',
});
