/**
 * `archiver run <profile>`: load and validate the profile, prepare the job
 * directory (refuse to mix with an earlier crawl's state unless --fresh),
 * wire SIGINT/SIGTERM to a graceful then hard stop, and crawl.
 */
import path from 'node:path';
import { loadProfile, validateProfile } from '../config/load-profile.js';
import type { Profile } from '../config/profile.js';
import { UsageError } from '../core/errors.js';
import { ConsoleServer, DEFAULT_CONSOLE_PORT } from '../console/console-server.js';
import { JobCatalog } from '../console/job-catalog.js';
import { LiveJob } from '../console/live-job.js';
import { consoleSearch } from '../console/search-engine.js';
import type { Crawl } from '../crawl/crawl.js';
import { runCrawl, type CrawlerOptions } from '../crawl/crawler.js';
import { hasState, jobDir, moveAside } from '../job/job-dir.js';
import type { CrawlSummary } from '../crawl/reports.js';
import { runHelp } from './help.js';
import type { CliIo } from './io.js';
import { parseCommandArgs, portOption } from './parse-options.js';
import { ExitCode } from './exit-codes.js';
import { consoleHost, untilSignal } from './serve-command.js';

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
    console: { type: 'boolean' },
    'console-port': { type: 'string' },
    'console-host': { type: 'string' },
    'keep-console': { type: 'boolean' },
  });
  if (values.help) {
    io.stdout.write(runHelp);
    return ExitCode.ok;
  }
  if (positionals.length !== 1) throw new UsageError('run takes exactly one profile file (see archiver run --help)');
  let profile = await loadProfile(positionals[0]!, process.cwd(), (line) => void io.stderr.write(`${line}\n`));
  if (values.workers !== undefined) {
    const workers = Number(values.workers);
    if (!Number.isInteger(workers) || workers < 1) throw new UsageError(`--workers must be a whole number ≥ 1, got ${values.workers}`);
    profile = validateProfile({ ...structuredClone(profile), workers }, positionals[0]);
  }
  const wantsConsole = values.console === true;
  if (!wantsConsole && (values['console-port'] !== undefined || values['console-host'] !== undefined || values['keep-console'] === true)) {
    throw new UsageError('--console-port, --console-host and --keep-console go with --console');
  }
  if (!wantsConsole) {
    const summary = await crawlWithSignals(profile, io, { fresh: values.fresh === true, quiet: values.quiet === true });
    return summary.status === 'ABORTED' ? ExitCode.interrupted : ExitCode.ok;
  }
  // The console listens before the crawl starts: a port in use stops the run before it crawls.
  const port = portOption(values['console-port'], DEFAULT_CONSOLE_PORT);
  const host = consoleHost(values['console-host'], io);
  const dir = profile.output.dir;
  const name = path.basename(dir);
  const catalog = new JobCatalog({ root: path.dirname(dir), only: name });
  const search = consoleSearch();
  const server = await ConsoleServer.start({ catalog, host, port, log: io.stderr, ...(search ? { search } : {}) });
  try {
    const summary = await crawlWithSignals(profile, io, {
      fresh: values.fresh === true,
      quiet: values.quiet === true,
      // The address is printed once the crawl is there to be seen.
      onStart: (crawl: Crawl) => {
        catalog.attach(new LiveJob({ name, dir, crawl }));
        io.stdout.write(`console  ${server.url}\n`);
        opts.onConsole?.(server);
      },
    });
    // From now on the job is served from its files (reports, index, WACZ).
    catalog.detach(name);
    if (values['keep-console'] === true) {
      io.stderr.write('archiver: the crawl is over; the console keeps serving it (Ctrl-C to stop)\n');
      await (opts.keepUntil ?? untilSignal());
    }
    return summary.status === 'ABORTED' ? ExitCode.interrupted : ExitCode.ok;
  } finally {
    await server.close();
  }
}

/** Runs a crawl with Ctrl-C/SIGTERM handling; used by `run` and `demo`. */
export async function crawlWithSignals(
  profile: Profile,
  io: CliIo,
  opts: { fresh: boolean; quiet: boolean } & Pick<CrawlerOptions, 'lookup' | 'onStart'>,
): Promise<CrawlSummary> {
  const dirs = jobDir(profile.output.dir);
  if (opts.fresh && (await hasState(dirs))) {
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
    } else {
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
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
      ...(opts.onStart ? { onStart: opts.onStart } : {}),
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
