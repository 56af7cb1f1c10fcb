/**
 * `archiver replay <job|file.wacz|warcs...> [--port N]`: serves
 * ReplayWeb.page and the archive on 127.0.0.1, prints the URL to open, and
 * runs until Ctrl-C. Only loopback is bound; the viewer renders archived
 * pages from the archive, never from the live sites.
 */
import { UsageError } from '../core/errors.js';
import { ReplayServer } from '../replay/replay-server.js';
import { replaySources } from '../replay/replay-sources.js';
import type { CliIo } from './io.js';
import { parseCommandArgs, portOption } from './parse-options.js';
import { ExitCode } from './exit-codes.js';
import { warnDamage } from './damage-report.js';
import { checkWarc } from '../warc/warc-records.js';

export const replayHelp = `archiver replay <job-dir | file.wacz ... | file.warc.gz ...> [options]

Serves ReplayWeb.page and the archive on http://127.0.0.1 and prints the URL
to open in a browser: the archive's page list, with full-text search. A job
directory is replayed from its WACZ (or its WARCs if it has none); several
WACZs open together as one collection (a later crawl deduplicated against an
earlier one needs both); WARC files open as one archive (slower, no page list),
after a check that tells each cut or corrupt stretch in them (file, offset,
what was skipped).

Options:
  --port N         port to listen on (default: a free one)
  -h, --help       this text

Stop with Ctrl-C.
`;

export interface ReplayMainOptions {
  /** Resolves when the server should stop; default: SIGINT or SIGTERM. */
  until?: Promise<void>;
  /** Called once listening (tests). */
  onListening?: (server: ReplayServer) => void;
}

export async function replayMain(argv: string[], io: CliIo, opts: ReplayMainOptions = {}): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { port: { type: 'string' } }, 'replay');
  if (values.help) {
    io.stdout.write(replayHelp);
    return ExitCode.ok;
  }
  if (positionals.length === 0) throw new UsageError('replay takes a job directory, WACZ or WARC files (see archiver replay --help)');
  const port = portOption(values.port, 0);
  const sources = await replaySources(positionals);
  // WARCs are served as they are, and the viewer stops at damage without a word: check them first.
  const warn = warnDamage(io);
  if (!sources.entry.endsWith('.wacz') && sources.entry !== 'collection.json') {
    for (const file of sources.describe) await checkWarc(file, warn);
  }
  const server = await ReplayServer.start({ sources, port });
  io.stdout.write(`Replaying ${sources.describe.length} file(s):\n${sources.describe.map((f) => `  ${f}\n`).join('')}`);
  io.stdout.write(`Open ${server.viewerUrl()}\n(Ctrl-C to stop)\n`);
  opts.onListening?.(server);
  const until = opts.until ?? new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await until;
  await server.close();
  return ExitCode.ok;
}
