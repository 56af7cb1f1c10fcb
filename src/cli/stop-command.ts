/**
 * `archiver stop redis://HOST:PORT/DB [--crawl NAME]`: asks every node of a
 * crawl of several processes to stop cleanly, as Ctrl-C does to one: no new
 * URIs, in-flight fetches finish, WARCs closed; each node exits 130. The same
 * `archiver run` commands resume the crawl.
 */
import { inspectStore } from '../backends/state-backends.js';
import type { CliIo } from './io.js';
import { parseCommandArgs, storeArgument } from './parse-options.js';
import { ExitCode } from './exit-codes.js';

export const stopHelp = `archiver stop redis://HOST:PORT/DB [options]

Asks every node of a crawl run by several processes on Redis to stop
cleanly (each finishes its fetches in flight, closes its WARCs and exits
130). Running the nodes again resumes the crawl.

Options:
  --crawl NAME   the crawl (the profile's name); may be left out when the
                 database holds one crawl
  --store SPEC   the store, instead of the first argument (as run and
                 serve name it)
  -h, --help     this text
`;

export async function stopMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { crawl: { type: 'string' }, store: { type: 'string' } });
  if (values.help) {
    io.stdout.write(stopHelp);
    return ExitCode.ok;
  }
  const store = await inspectStore(storeArgument('stop', values.store, positionals));
  try {
    const crawl = await store.pick(values.crawl);
    const live = await store.stop(crawl);
    io.stderr.write(`archiver: asked crawl ${JSON.stringify(crawl)} to stop (${live} live node${live === 1 ? '' : 's'})\n`);
    return ExitCode.ok;
  } finally {
    await store.close();
  }
}
