/**
 * `archiver run <profile>`: load and validate the profile, prepare the job
 * directory (refuse to mix with an earlier crawl's state unless --fresh),
 * wire SIGINT/SIGTERM to a graceful then hard stop, and crawl.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadProfile } from '../config/load-profile.js';
import type { Profile } from '../config/profile.js';
import { ProfileError, UsageError } from '../core/errors.js';
import type { ConsoleServer } from '../console/console-server.js';
import { runCrawl, type CrawlerOptions } from '../crawl/crawler.js';
import { hasState, jobDir, moveAside } from '../job/job-dir.js';
import { checkNodeId, defaultNodeId } from '../backends/node-id.js';
import { backendRow, resetStateBackend } from '../backends/state-backends.js';
import type { CrawlSummary } from '../crawl/reports.js';
import { runHelp } from './help.js';
import type { CliIo } from './io.js';
import { parseCommandArgs } from './parse-options.js';
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
  const { values, positionals } = parseCommandArgs(argv, {
    fresh: { type: 'boolean' },
    quiet: { type: 'boolean' },
    workers: { type: 'string' },
    'max-pages': { type: 'string' },
    'max-bytes': { type: 'string' },
    'max-duration': { type: 'string' },
    console: { type: 'boolean' },
    'console-port': { type: 'string' },
    'console-host': { type: 'string' },
    'keep-console': { type: 'boolean' },
    store: { type: 'string' },
    node: { type: 'string' },
  }, 'run');
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
  const loaded = await loadProfile(file, process.cwd(), (line) => void io.stderr.write(`${line}\n`), patch);
  // --store overrides the profile's `store` (level, or redis://HOST:PORT/DB for a crawl of several processes).
  const profile = values.store !== undefined ? { ...loaded, store: values.store } : loaded;
  const shared = backendRow(profile.store).shared;
  if (values.node !== undefined && !shared) throw new UsageError('--node goes with a shared store (--store redis://HOST:PORT/DB)');
  const node = shared ? checkNodeId(values.node ?? defaultNodeId()) : undefined;
  // Every node learns the one topic from the keywords and the training read from disk (and shares what feedback adds);
  // training URLs would each be fetched by one node, and no node would hold them all.
  const trainingUrl = profile.focus?.training.findIndex((t) => /^https?:\/\//i.test(t)) ?? -1;
  if (shared && trainingUrl >= 0) {
    throw new ProfileError(`/focus/training/${trainingUrl}`, `${file}: /focus/training/${trainingUrl}: training URLs are not fetched in a crawl of several processes (${profile.store}); give keywords, or training WARCs or job directories`);
  }
  // A job that ran to its end is left as it is: running it again would only rewrite its reports.
  // (A node of a shared crawl rejoins instead: on a finished crawl it repairs its files and packages the job again.)
  if (!shared && values.fresh !== true && (await lastEndOf(profile.output.dir)) === 'FINISHED') {
    io.stderr.write(`archiver: ${profile.output.dir} is a finished crawl (nothing left to crawl); run with --fresh to start over (the old job is moved aside)\n`);
    return ExitCode.ok;
  }
  const wantsConsole = values.console === true;
  if (!wantsConsole && (values['console-port'] !== undefined || values['console-host'] !== undefined || values['keep-console'] === true)) {
    throw new UsageError('--console-port, --console-host and --keep-console go with --console');
  }
  if (!wantsConsole) {
    const summary = await crawlWithSignals(profile, io, { fresh: values.fresh === true, quiet: values.quiet === true, ...(node !== undefined ? { node } : {}) });
    return summary.status === 'ABORTED' ? ExitCode.interrupted : reportSeeds(summary, io);
  }
  // Loaded only here: a crawl without a console carries none of it.
  const { crawlWithConsole } = await import('./run-console.js');
  const summary = await crawlWithConsole(profile, io, {
    fresh: values.fresh === true,
    quiet: values.quiet === true,
    ...(node !== undefined ? { node } : {}),
    portText: values['console-port'],
    hostText: values['console-host'],
    keep: values['keep-console'] === true,
    ...(opts.onConsole ? { onConsole: opts.onConsole } : {}),
    ...(opts.keepUntil ? { keepUntil: opts.keepUntil } : {}),
  });
  return summary.status === 'ABORTED' ? ExitCode.interrupted : reportSeeds(summary, io);
}

function wholeNumber(flag: string, value: string, min: number, what: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} must be ${what}, got ${value}`);
  return n;
}

/** How the job's last run ended (its crawl report), or null when it has none. */
async function lastEndOf(jobRoot: string): Promise<string | null> {
  const dirs = jobDir(jobRoot);
  if (!(await hasState(dirs))) return null;
  try {
    const report = JSON.parse(await readFile(path.join(dirs.reports, 'crawl-report.json'), 'utf8')) as { status?: unknown };
    return typeof report.status === 'string' ? report.status : null;
  } catch {
    return null;
  }
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

/** Runs a crawl with Ctrl-C/SIGTERM handling; used by `run` and `demo`. */
export async function crawlWithSignals(
  profile: Profile,
  io: CliIo,
  opts: { fresh: boolean; quiet: boolean } & Pick<CrawlerOptions, 'lookup' | 'onStart' | 'node'>,
): Promise<CrawlSummary> {
  const dirs = jobDir(profile.output.dir);
  if (opts.fresh && backendRow(profile.store).shared) {
    // Refused while a node of the crawl is alive; then the job directory goes aside and the crawl's keys go.
    await resetStateBackend(profile.store, profile.name);
    const moved = await moveAside(dirs, new Date());
    if (moved !== null) io.stderr.write(`archiver: moved the earlier crawl aside to ${moved}\n`);
    io.stderr.write(`archiver: deleted crawl ${JSON.stringify(profile.name)} from ${profile.store}\n`);
  } else if (opts.fresh && (await hasState(dirs))) {
    const moved = await moveAside(dirs, new Date());
    io.stderr.write(`archiver: moved the earlier crawl aside to ${moved}\n`);
  }
  const stop = new AbortController();
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      io.stderr.write('\narchiver: stopping — finishing in-flight fetches (Ctrl-C again to abandon them)\n');
      stop.abort();
    } else if (interrupts === 2) {
      io.stderr.write('archiver: abandoning in-flight fetches (they stay queued for the resume)\n');
      abort.abort();
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await runCrawl({
      profile,
      stderr: io.stderr,
      stopSignal: stop.signal,
      abortSignal: abort.signal,
      quiet: opts.quiet,
      ...(opts.node !== undefined ? { node: opts.node } : {}),
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
      ...(opts.onStart ? { onStart: opts.onStart } : {}),
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
