/**
 * `archiver run <profile>`: load and validate the profile, prepare the job
 * directory (refuse to mix with an earlier crawl's state unless --fresh),
 * wire SIGINT/SIGTERM to a graceful then hard stop, and crawl.
 */
import { loadProfile, validateProfile } from '../config/load-profile.js';
import type { Profile } from '../config/profile.js';
import { UsageError } from '../core/errors.js';
import { runCrawl, type CrawlerOptions } from '../crawl/crawler.js';
import { hasState, jobDir, moveAside } from '../job/job-dir.js';
import type { CrawlSummary } from '../crawl/reports.js';
import { runHelp } from './help.js';
import type { CliIo } from './io.js';
import { parseCommandArgs } from './parse-options.js';
import { ExitCode } from './exit-codes.js';

export async function runMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { fresh: { type: 'boolean' }, quiet: { type: 'boolean' }, workers: { type: 'string' } });
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
  const summary = await crawlWithSignals(profile, io, { fresh: values.fresh === true, quiet: values.quiet === true });
  return summary.status === 'ABORTED' ? ExitCode.interrupted : ExitCode.ok;
}

/** Runs a crawl with Ctrl-C/SIGTERM handling; used by `run` and `demo`. */
export async function crawlWithSignals(
  profile: Profile,
  io: CliIo,
  opts: { fresh: boolean; quiet: boolean } & Pick<CrawlerOptions, 'lookup'>,
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
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
