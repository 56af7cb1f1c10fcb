/**
 * `archiver serve [DIR] [--port P] [--host H]`: the web console for the jobs
 * under DIR (default jobs/): finished jobs to browse and search, and a form
 * to start a job from a profile under profiles/, crawled inside this
 * process with the same live views. With `--store SPEC [--crawl NAME]`,
 * instead, the console of a crawl run by other processes, through its store
 * (serve-store.ts). Prints the console's address with its token and runs
 * until Ctrl-C/SIGTERM, which stops running crawls cleanly first.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { ConsoleServer, DEFAULT_CONSOLE_PORT } from '../console/console-server.js';
import { JobCatalog } from '../console/job-catalog.js';
import { ProfileStarter } from '../console/profile-starter.js';
import { consoleSearch } from '../console/search-engine.js';
import type { CrawlStartOptions } from '../crawl/crawl.js';
import { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { parseCommandArgs, portOption } from './parse-options.js';
import { openStoreJob } from './serve-store.js';

export const serveHelp = `archiver serve [DIR] [options]

The web console for the jobs under DIR (default jobs/): browse and search
finished jobs, replay their pages, and start a job from a profile under
profiles/ (it is crawled inside this process into DIR/<profile name>, with
live status, charts, queues, hosts and crawl.log). Prints one line
  console  http://127.0.0.1:<port>/#token=<token>
to open in a browser; every API call needs that token.

With --store, the console of a crawl run by other processes (archiver run
<profile> --store … --node X, on this machine or others) and no crawl of its
own: every node (alive, pages, pages/s, in flight), the totals, the queues of
every node, the hosts of its queues, and a log tail that merges every node's
logs/crawl-<node>.log from the crawl's job directory (--job). Pause, resume,
stop, seeds and exclusions act on every node through the store (each node
follows within a second; seeds and exclusions are kept for a resume).
Ctrl-C stops serve only, never the crawl.

Options:
  --port N         port to listen on (default ${DEFAULT_CONSOLE_PORT}; 0 = any free port)
  --host H         address to listen on (default 127.0.0.1; anything else
                   must be given explicitly and prints a warning)
  --profiles DIR   where the profiles are (default profiles/)
  --store SPEC     show the crawl held in this store: redis://HOST:PORT/DB or
                   redis+cluster://HOST:PORT[,HOST:PORT…]
  --crawl NAME     with --store: the crawl (the profile's name); may be left
                   out when the store holds one crawl
  --job DIR        with --store: the crawl's job directory, where its nodes
                   write their crawl logs (default DIR/<crawl>, i.e.
                   jobs/<crawl>, the profile's default output.dir)
  -h, --help       this text

Stop with Ctrl-C: running crawls stop cleanly first (their state is kept; a
second Ctrl-C abandons their fetches in flight).
`;

export interface ServeMainOptions {
  /** Resolves when the server should stop; default: SIGINT or SIGTERM. */
  until?: Promise<void>;
  /** Called once listening (tests). */
  onListening?: (server: ConsoleServer) => void;
  /** Passed to crawls started from the page (tests: DNS). */
  crawl?: Omit<CrawlStartOptions, 'log'>;
}

export async function serveMain(argv: string[], io: CliIo, opts: ServeMainOptions = {}): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { port: { type: 'string' }, host: { type: 'string' }, profiles: { type: 'string' }, store: { type: 'string' }, crawl: { type: 'string' }, job: { type: 'string' } },
    'serve',
  );
  if (values.help) {
    io.stdout.write(serveHelp);
    return ExitCode.ok;
  }
  if (positionals.length > 1) throw new UsageError('serve takes at most one jobs directory (see archiver serve --help)');
  const port = portOption(values.port, DEFAULT_CONSOLE_PORT);
  const host = consoleHost(values.host, io);
  if (values.store !== undefined) {
    if (values.profiles !== undefined) throw new UsageError('--profiles starts crawls in serve; with --store serve shows a crawl run elsewhere: give one of them');
    const { catalog, job } = await openStoreJob({ store: values.store, crawl: values.crawl, job: values.job, jobsDir: positionals[0] }, io);
    try {
      const server = await ConsoleServer.start({ catalog, host, port, log: io.stderr, search: consoleSearch() });
      io.stderr.write(`archiver serve: crawl ${JSON.stringify(job.crawl)} in ${values.store}\n`);
      io.stdout.write(`console  ${server.url}\n`);
      opts.onListening?.(server);
      await (opts.until ?? untilSignal());
      await server.close();
    } finally {
      await job.close();
    }
    return ExitCode.ok;
  }
  for (const only of ['crawl', 'job'] as const) if (values[only] !== undefined) throw new UsageError(`--${only} goes with --store (see archiver serve --help)`);
  const root = path.resolve(positionals[0] ?? 'jobs');
  // Not an error (jobs started from the console go there), but a mistyped folder would show an empty console without a word.
  if (!existsSync(root)) io.stderr.write(`archiver serve: ${root} does not exist yet: no jobs to show; jobs started from the console go there\n`);
  const catalog = new JobCatalog({ root });
  const starter = new ProfileStarter({ profilesDir: path.resolve(values.profiles ?? 'profiles'), catalog, log: io.stderr, ...(opts.crawl ? { crawl: opts.crawl } : {}) });
  const search = consoleSearch();
  const server = await ConsoleServer.start({ catalog, starter, host, port, log: io.stderr, search });
  io.stdout.write(`console  ${server.url}\n`);
  opts.onListening?.(server);
  // A second Ctrl-C abandons the fetches in flight. Listened for from the start: between the
  // first signal's listener going and this one coming, a Ctrl-C found node's default (exit at once).
  let running: ReturnType<JobCatalog['liveJobs']> | null = null;
  const abandon = (): void => {
    for (const job of running ?? []) job.crawl.stop({ abandonInFlight: true });
  };
  process.on('SIGINT', abandon);
  process.on('SIGTERM', abandon);
  try {
    await (opts.until ?? untilSignal());
    running = catalog.liveJobs();
    if (running.length > 0) io.stderr.write(`archiver serve: stopping ${running.length} crawl(s)\n`);
    for (const job of running) job.crawl.stop();
    await Promise.allSettled(running.map((job) => job.crawl.done));
  } finally {
    process.off('SIGINT', abandon);
    process.off('SIGTERM', abandon);
  }
  await server.close();
  return ExitCode.ok;
}

/** The console's address: 127.0.0.1 unless another is given, which is said out loud. */
export function consoleHost(value: string | undefined, io: CliIo): string {
  if (value === undefined || value === '127.0.0.1') return '127.0.0.1';
  if (value === '') throw new UsageError('--host needs an address');
  io.stderr.write(`archiver: warning: the console listens on ${value}, not only on this machine's loopback: anyone who can reach it and learns the token controls its crawls\n`);
  return value;
}

export function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
