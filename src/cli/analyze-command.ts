/**
 * `archiver analyze <dir|file...>`: argument parsing, the run, and output.
 * `analyzeMain(argv, io)` returns the exit code itself (0 ok, 1 fatal such as
 * non-convergence, 2 usage, 4 no input) so it can be tested by passing
 * buffers, and so the CLI only has to dispatch to it.
 */
import { parseArgs } from 'node:util';
import { ArchiverError, NoInputError, UsageError } from '../core/errors.js';
import { analyzeWarcs, type AnalysisOptions } from '../analysis/analysis.js';
import { exportFiles } from '../analysis/export-files.js';
import { GEXF_MAX_NODES_DEFAULT, writeGexf } from '../analysis/gexf-export.js';
import { expandInputs } from '../inputs/inputs.js';
import { PAGERANK_DEFAULTS } from '../analysis/pagerank.js';
import { monotonicClock, type Clock } from '../core/clock.js';
import { ProgressReporter } from '../analysis/progress.js';
import { jsonReport, textReport } from '../analysis/report.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { parseArgsUsage } from './parse-options.js';

export interface AnalyzeIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** For tests: drives the progress interval. */
  clock?: Clock;
}

export const analyzeHelp = `Usage: archiver analyze <job-dir|file.wacz|dir|file.warc.gz...> [options]

Reads WARC files (gzipped or not, written by any tool), builds the link graph
of the captured HTML pages and reports its size, degree distributions and
PageRank. A job directory is read as its finished WARCs (warcs/; its WACZ if
it has none); a WACZ as the WARCs stored in it; other directories are
searched recursively, and files in them that are not WARCs are skipped with
a warning. A cut or corrupt stretch of a WARC is reported (file, offset, what
was skipped) and reading goes on after it.

The graph: a node is a URL captured with a 2xx HTML response (a revisit
counts); an edge is an a/area href or iframe/frame src to another node,
resolved against <base href>, fragments removed, captured redirects followed
to the final page, duplicates collapsed. A revisit (identical payload) gets
the title and links of its original record, read again and resolved against
the revisit's own URL, when the original is among the inputs — for a job,
the earlier crawls of its dedup.against count; otherwise it is counted as
unresolved (a page without links or title).

Options:
  --top N              pages (and with --hosts, hosts) listed in the PageRank tables
                       (default 10; 0 for none)
  --json               print one JSON document on stdout instead of the text report,
                       with all it says: {pages, edges, dangling, inDegree,
                       outDegree ({histogram, min, mean, median, max}),
                       pagerank[] ({url, score, inDegree, outDegree, title}),
                       links {uncaptured, uncapturedUrls, nonPage},
                       revisits {fromOriginal, unresolved}, convergence {alpha,
                       tolerance, iterations, l1Change}, read {files, records,
                       bytes, skippedRecords, skippedFiles, damaged}}; with
                       --hosts also hostEdges and hosts[], with --gexf also
                       gexf {file, graph, nodes, edges}
  --out DIR            also write DIR/nodes.csv, edges.csv, pagerank.csv,
                       degrees.svg (log-log plot of both degree distributions) and
                       with --hosts hosts.csv (DIR = <job>/analysis lets the web
                       console show each page's PageRank)
  --alpha A            PageRank damping factor, 0 <= A < 1 (default ${PAGERANK_DEFAULTS.alpha})
  --tolerance T        stop when the L1 change of one iteration is below T (default ${PAGERANK_DEFAULTS.tolerance})
  --max-iterations N   give up after N iterations; not converging is an error, exit 1
                       (default ${PAGERANK_DEFAULTS.maxIterations})
  --keep-self-loops    keep links from a page to itself (dropped by default)
  --hosts              also the host graph: a node per host (host[:port] as in the
                       URLs), an edge A→B weighted by the links from pages on A to
                       pages on B (links within a host left out); per host: pages,
                       weighted in/out degree, weighted PageRank (--alpha, true L1
                       change < 1e-9) and HITS hub/authority (graphology-metrics).
                       Top N in the text report, every host in --json "hosts" and
                       --out DIR/hosts.csv, highest PageRank first
  --gexf FILE          write the page graph as GEXF (Gephi, networkx, Sigma.js): node
                       id = URL, attributes pagerank, inDegree, outDegree, title;
                       with --hosts the host graph instead: node id = host, edge
                       weight, attributes pages, pagerank, hub, authority,
                       inDegree, outDegree (weighted)
  --gexf-max-nodes N   pages in the GEXF: the N of highest PageRank and the links
                       among them (default ${GEXF_MAX_NODES_DEFAULT}); their in/out degrees are
                       those in the whole graph
  -h, --help           this text

Progress (records, MB read, MB/s) and warnings about unreadable input go to
stderr; skipped records are counted in the report.

Exit codes: 0 done, 1 fatal (e.g. PageRank did not converge), 2 usage error
(no input named), 4 no readable WARC input.
`;

interface ParsedArgs {
  paths: string[];
  top: number;
  json: boolean;
  outDir: string | null;
  gexfFile: string | null;
  gexfMaxNodes: number;
  analysis: AnalysisOptions;
  help: boolean;
}

function parseNumber(name: string, raw: string | undefined, fallback: number, valid: (n: number) => boolean, what: string): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !valid(n)) throw new UsageError(`--${name} must be ${what}, got "${raw}"`);
  return n;
}

export function parseAnalyzeArgs(argv: string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        top: { type: 'string' },
        json: { type: 'boolean' },
        out: { type: 'string' },
        alpha: { type: 'string' },
        tolerance: { type: 'string' },
        'max-iterations': { type: 'string' },
        'keep-self-loops': { type: 'boolean' },
        hosts: { type: 'boolean' },
        gexf: { type: 'string' },
        'gexf-max-nodes': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw parseArgsUsage(err, 'analyze');
  }
  const v = parsed.values;
  const isCount = (n: number): boolean => Number.isInteger(n) && n >= 0;
  return {
    paths: parsed.positionals,
    help: v.help === true,
    json: v.json === true,
    outDir: v.out ?? null,
    top: parseNumber('top', v.top, 10, isCount, 'an integer >= 0'),
    gexfFile: v.gexf ?? null,
    gexfMaxNodes: parseNumber('gexf-max-nodes', v['gexf-max-nodes'], GEXF_MAX_NODES_DEFAULT, (n) => isCount(n) && n > 0, 'an integer > 0'),
    analysis: {
      alpha: parseNumber('alpha', v.alpha, PAGERANK_DEFAULTS.alpha, (n) => n >= 0 && n < 1, 'a number in [0, 1)'),
      tolerance: parseNumber('tolerance', v.tolerance, PAGERANK_DEFAULTS.tolerance, (n) => n > 0, 'a number > 0'),
      maxIterations: parseNumber(
        'max-iterations',
        v['max-iterations'],
        PAGERANK_DEFAULTS.maxIterations,
        (n) => isCount(n) && n > 0,
        'an integer > 0',
      ),
      keepSelfLoops: v['keep-self-loops'] === true,
      hosts: v.hosts === true,
    },
  };
}

export async function analyzeMain(argv: string[], io: AnalyzeIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (err) {
    if (err instanceof ArchiverError) {
      const hint = err instanceof UsageError && !err.message.includes('--help)') ? ' (see archiver analyze --help)' : '';
      io.stderr.write(`archiver analyze: ${err.message}${hint} [${err.code}]\n`);
      return exitCodeFor(err);
    }
    io.stderr.write(`archiver analyze: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return ExitCode.fatal;
  }
}

async function run(argv: string[], io: AnalyzeIo): Promise<number> {
  const args = parseAnalyzeArgs(argv);
  if (args.help) {
    io.stdout.write(analyzeHelp);
    return ExitCode.ok;
  }
  if (args.paths.length === 0) throw new UsageError('name what to analyze: a job directory, WACZ, WARC files or directories of them');
  const warn = (message: string): void => void io.stderr.write(`warning: ${message}\n`);

  const inputs = await expandInputs(args.paths);
  // Nothing given exists: say so, rather than warn and then find "no WARC files" in nothing.
  const given = new Set(args.paths);
  if (inputs.files.length === 0 && inputs.missing.filter((m) => given.has(m.path)).length === given.size) {
    throw new NoInputError(inputs.missing.map((m) => `${m.path}: ${m.reason}`).join('; '));
  }
  for (const m of inputs.missing) warn(`${m.path}: cannot open: ${m.reason}; skipped`);
  for (const note of inputs.notes) io.stderr.write(`analyze: ${note}\n`);
  if (inputs.files.length === 0) throw new NoInputError(`no input: no WARC files found in ${args.paths.join(', ')}`);

  const progress = new ProgressReporter(io.stderr, io.clock ?? monotonicClock);
  const result = await analyzeWarcs(
    inputs.files,
    args.analysis,
    {
      warn,
      progress: (records, bytes, file) => progress.update(records, bytes, file),
    },
    inputs.references,
  );
  progress.finish(result.read.records, result.read.bytesRead);
  if (result.read.records === 0) {
    throw new NoInputError(`no input: no readable WARC records in ${args.paths.join(', ')}`);
  }

  const gexf = args.gexfFile === null ? null : await writeGexf(result, args.gexfFile, args.gexfMaxNodes);
  if (args.json) io.stdout.write(JSON.stringify(jsonReport(result, args.top, gexf), null, 2) + '\n');
  else io.stdout.write(textReport(result, args.top, gexf));
  const { skippedRecords, skippedFiles, damaged } = result.read;
  if (skippedRecords > 0 || skippedFiles > 0 || damaged > 0) {
    const parts = [`${skippedRecords} unreadable record(s)`, `${skippedFiles} non-WARC file(s)`];
    if (damaged > 0) parts.push(`${damaged} cut or corrupt stretch(es) of WARC files`);
    warn(`skipped ${parts.join(', ')} (see above)`);
  }
  if (args.outDir !== null) {
    const written = await exportFiles(result, args.outDir);
    io.stderr.write(`wrote ${written.join(', ')}\n`);
  }
  return ExitCode.ok;
}
