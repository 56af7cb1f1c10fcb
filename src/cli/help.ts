/** Help texts for the CLI; every option is explained here. */

export const mainHelp = `archiver — an archival web crawler (Heritrix-style frontier, WARC output, link analysis)

Usage:
  archiver run <profile.json> [options]    crawl what the profile says → WARCs, crawl.log, reports
  archiver analyze <job|wacz|warcs...>     link graph, degrees, PageRank; host graph (--hosts), GEXF (--gexf)
  archiver index <job|warcs...>            write a CDXJ index (sorted, with offsets) of a job or WARC files;
                                           for a job, also rebuild its search index (--search -o DIR: of WARCs)
  archiver search <job> "<query>"          full-text search over a job's pages (--top N, --json)
  archiver wacz <job>                      (re)build the job's WACZ package for ReplayWeb.page
  archiver replay <job|file.wacz|warcs...> serve the archive in ReplayWeb.page on 127.0.0.1
  archiver serve [DIR]                     the web console for the jobs under DIR (default jobs/)
  archiver serve --store redis://… [--crawl NAME] [--job DIR]
                                           the console of a crawl of several processes, run elsewhere:
                                           every node, totals, queues, merged log tail, crawl-wide controls
  archiver demo [options]                  start the bundled demo web on loopback, crawl it, analyse it
                                           (--serve-only: serve the demo web alone, for your own profile)
  archiver status redis://HOST:PORT/DB     a crawl of several processes: nodes, queues, rates (--crawl, --json;
                                           redis+cluster://HOST:PORT for a Redis Cluster; or --store SPEC)
  archiver stop redis://HOST:PORT/DB       ask every node of such a crawl to stop cleanly (--crawl; or --store SPEC)
  archiver <command> --help                options of one command (also: archiver help <command>)
  archiver --version

Exit codes: 0 success, 1 crawl aborted by a fatal error (index, wacz: damaged
WARC input, see --skip-bad), 2 usage error, 3 invalid profile, 4 no input (no
such profile file, no WARCs, no search index), 5 nothing crawled (no seed
answered), 6 browser capture enabled and no Chromium can run, 130 interrupted
(state kept).
`;

export const runHelp = `archiver run <profile.json> [options]

Crawls the seeds of a JSON profile (see README.md for every profile field and
its default) into the profile's job directory (output.dir, default jobs/<name>):
  warcs/                  WARC files (PREFIX-<timestamp>-<serial>-<pid>~<host>.warc.gz;
                          the one being written ends in .open)
  logs/crawl.log          one Heritrix-format line per URI
  reports/                crawl, seeds, hosts, mimetype, response-code, frontier
                          reports (.txt and .json)
  state/                  LevelDB: seen filter, frontier queues, digest index,
                          robots.txt and host journals (what a resume continues from)
  tmp/                    bodies over 1 MiB while they are fetched
  indexes/index.cdxj      the CDXJ index, written at the end of every run
  indexes/captures.jsonl  the capture journal: a line per record written (the
                          index, page list and search index are built from it)
  indexes/search/         the full-text index (see archiver search)
  indexes/inlinks.txt     which pages link to a URL (built by the web console)
  <name>.wacz             the WACZ package of the whole job (archiver replay); none with output.wacz false
  analysis/               archiver analyze <job> --out <job>/analysis writes here

A job directory that holds an unfinished crawl (stopped, killed, or ended on a
limit) is resumed under the current profile and flags: WARC files left open by
an interrupted run are cut back to their last complete record and closed,
queued and in-process URIs are crawled, statistics and WARC serials continue
(so a raised --max-pages continues a crawl that stopped on its limit). A job
that ran to its end (FINISHED) is left untouched: run with --fresh to start over.

Options:
  --fresh           do not resume: move the earlier crawl aside
                    (renamed <dir>.<timestamp>, never deleted) and start over
  --quiet           no live progress display and no summary on stderr
  --workers N       override the profile's workers (fetches in flight)
  --max-pages N     override limits.maxPages: stop after N URIs captured (the job's total)
  --max-bytes N     override limits.maxBytes: stop after N body bytes
  --max-duration S  override limits.maxDurationSec: stop after S seconds of this run
  --console         serve the web console of this crawl on 127.0.0.1 and print
                    one line: console  http://127.0.0.1:<port>/#token=<token>
                    (live status and controls, queues, hosts, crawl.log, the archive)
  --console-port N  the console's port (default 8480; 0 = any free port)
  --console-host H  the console's address (default 127.0.0.1; anything else
                    prints a warning)
  --keep-console    when the crawl ends, keep serving the finished job until
                    Ctrl-C/SIGTERM (without it the process exits with the crawl)
  --store SPEC      where the crawl keeps its state, overriding the profile's
                    store: level (default), or redis://HOST:PORT/DB to run this
                    process as one node of a crawl shared by any number of
                    processes on one machine or several (see README: Several
                    processes), or redis+cluster://HOST:PORT[,HOST:PORT…] for
                    the same on a Redis Cluster (any one node is enough); the
                    profile's name keeps crawls apart in Redis
  --node ID         this node's id in a shared crawl (default the hostname;
                    letters, digits, ._-): its files in the job directory are
                    named by it, and an id alive in the crawl is refused
  -h, --help        this text

Exit codes: 0 crawled, 2 usage, 3 invalid profile, 4 profile file missing,
5 no seed could be crawled (each failed seed is named on stderr), 6 browser
capture enabled and no Chromium can run (apt-get install chromium), 1 fatal
error (disk full…; the same command resumes), 130 interrupted.

Ctrl-C (SIGINT) or SIGTERM stops taking new URIs, lets in-flight fetches finish,
closes the WARCs and writes the reports; a second Ctrl-C abandons in-flight
fetches at once.
`;

export const demoHelp = `archiver demo [options]

Starts the bundled demo web (3 hosts on 127.0.0.2-127.0.0.4, with robots.txt,
redirects, images, CSS, a 404, gzip and chunked pages), crawls it with
profiles/demo.json into jobs/demo (an earlier jobs/demo is moved aside), prints
the crawl summary and where the WARCs are, runs \`archiver analyze jobs/demo\`,
and lists what to try next (replay, analyze --out, search, serve).

With --serve-only, serves the demo web and nothing else until Ctrl-C, and
prints its seeds and a profile to start from: for crawling it with a profile
of your own (archiver run mine.json).

Options:
  --port N         port the demo web listens on (default 8421; 0 = any free one)
  --serve-only     serve the demo web only, until Ctrl-C
  --top N          PageRank top N printed by the analysis (default 10)
  --quiet          no live progress display
  -h, --help       this text
`;
