/**
 * `archiver run --console`: the crawl with its web console. The console
 * listens before the crawl starts (a port in use stops the run before it
 * crawls), its address is printed once the crawl is there to be seen, and
 * with --keep-console it serves the finished job until Ctrl-C/SIGTERM.
 */
import path from 'node:path';
import type { Profile } from '../config/profile.js';
import { ConsoleServer, DEFAULT_CONSOLE_PORT } from '../console/console-server.js';
import { JobCatalog } from '../console/job-catalog.js';
import { LiveJob } from '../console/live-job.js';
import { consoleSearch } from '../console/search-engine.js';
import type { Crawl, CrawlStartOptions } from '../crawl/crawl.js';
import type { CrawlSummary } from '../crawl/reports.js';
import { crawlWithSignals } from './crawl-signals.js';
import type { CliIo } from './io.js';
import { portOption } from './parse-options.js';
import { consoleHost, untilSignal } from './serve-command.js';

export interface RunConsoleOptions {
  /** --console-port and --console-host as given. */
  portText: string | undefined;
  hostText: string | undefined;
  /** --keep-console. */
  keep: boolean;
  /** Called once it listens (tests). */
  onConsole?: (server: ConsoleServer) => void;
  /** With --keep-console: resolves when the console should stop; default SIGINT or SIGTERM. */
  keepUntil?: Promise<void>;
}

export async function crawlWithConsole(profile: Profile, io: CliIo, start: CrawlStartOptions, o: RunConsoleOptions): Promise<CrawlSummary> {
  const port = portOption(o.portText, DEFAULT_CONSOLE_PORT);
  const host = consoleHost(o.hostText, io);
  const dir = profile.output.dir;
  const name = path.basename(dir);
  const catalog = new JobCatalog({ root: path.dirname(dir), only: name });
  const server = await ConsoleServer.start({ catalog, host, port, portFlag: '--console-port', log: io.stderr, search: consoleSearch() });
  try {
    const summary = await crawlWithSignals(profile, start, (crawl: Crawl) => {
      catalog.attach(new LiveJob({ name, dir, crawl }));
      io.stdout.write(`console  ${server.url}\n`);
      o.onConsole?.(server);
    });
    // From now on the job is served from its files (reports, index, WACZ).
    catalog.detach(name);
    if (o.keep) {
      io.stderr.write('archiver: the crawl is over; the console keeps serving it (Ctrl-C to stop)\n');
      await (o.keepUntil ?? untilSignal());
    }
    return summary;
  } finally {
    // A crawl that failed was never detached: what its job opened to read the store closes with it.
    catalog.detach(name);
    await server.close();
  }
}
