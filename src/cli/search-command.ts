/**
 * `archiver search <job|index-dir> "<query>" [options]`: full-text search
 * over a job's pages from the terminal, the same search as the console's
 * `/api/search` (`--json` prints the same object). Reads the index while a
 * crawl may be writing it; a job without an index gets one built from its
 * WARCs first.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { NoInputError, UsageError } from '../core/errors.js';
import { currentJobSearchIndex } from '../search/job-search.js';
import { SEARCH_DB_FILE, SearchStore } from '../search/search-store.js';
import { MAX_LIMIT, type SearchOptions, type SearchResponse } from '../search/search-types.js';
import { warnDamage } from './damage-report.js';
import { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { parseCommandArgs } from './parse-options.js';

export const searchHelp = `archiver search <job-dir | index-dir> "<query>" [options]

Full-text search over the pages of a job (2xx HTML captures: title and
visible text), ranked by BM25 with the title weighted up. The index lives in
<job>/indexes/search/, brought up to date with the job's capture journal
at each search (the crawl itself does not index; archiver index rebuilds
it); a job without a journal or an index gets one built from its WARCs. An index
directory made by archiver index --search works too.

Query: words are all required; "an exact phrase" in double quotes; -word or
-"a phrase" excludes. Case, accents and Unicode forms (full-width letters…)
do not matter; Chinese, Japanese and Korean are matched by word. Pages that
hold the query's words as one phrase come first.

Scores are BM25's: they order the hits of one query, not one query against
another. A word on more than half of the pages weighs next to nothing (its
idf is clamped near 0), so its hits' scores are tiny (2.31e-6) yet still
ordered by how often and how prominently each page has it.

Options:
  --top N          hits to show (default 10, at most ${MAX_LIMIT})
  --offset N       hits to skip first (default 0)
  --host NAME      only pages of this host name (no port)
  --mime TYPE      only pages of this media type
  --status CODE    only pages with this HTTP status
  --json           print {"total","tookMs","hits":[{"url","title","snippet",
                   "score","timestamp","status","mime"}]}, as /api/search does
  -h, --help       this text

Exit codes: 0 (also when nothing matches), 2 usage, 4 no index and no WARCs
to build one from.
`;

export async function searchMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    top: { type: 'string' },
    offset: { type: 'string' },
    host: { type: 'string' },
    mime: { type: 'string' },
    status: { type: 'string' },
    json: { type: 'boolean' },
  }, 'search');
  if (values.help) {
    io.stdout.write(searchHelp);
    return ExitCode.ok;
  }
  if (positionals.length !== 2) throw new UsageError('search takes a job directory and one query (quote it): archiver search jobs/site "words"');
  const [target, query] = positionals as [string, string];
  const opts: SearchOptions = {
    limit: intOption('--top', values.top, 10, 0, MAX_LIMIT),
    offset: intOption('--offset', values.offset, 0, 0, Number.MAX_SAFE_INTEGER),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values.mime !== undefined ? { mime: values.mime } : {}),
    ...(values.status !== undefined ? { status: intOption('--status', values.status, 0, 100, 999) } : {}),
  };
  const dir = await indexDirFor(target, io);
  const store = SearchStore.open(dir, { readonly: true });
  let result: SearchResponse;
  try {
    result = store.search(query, opts);
  } finally {
    store.close();
  }
  if (values.json) io.stdout.write(JSON.stringify(result) + '\n');
  else io.stdout.write(formatResult(query, result, opts.offset ?? 0, io.stdout.isTTY === true));
  return ExitCode.ok;
}

/** The index directory of `target`: itself when it holds an index, else the job's (built now if missing). */
async function indexDirFor(target: string, io: CliIo): Promise<string> {
  const abs = path.resolve(target);
  if (!existsSync(abs)) throw new NoInputError(`${target}: no such job directory (nor index directory)`);
  if (existsSync(path.join(abs, SEARCH_DB_FILE))) return abs;
  const dir = await currentJobSearchIndex(abs, { onDamage: warnDamage(io), onProgress: (line) => io.stderr.write(`archiver: ${line}\n`) });
  if (dir === null) throw new NoInputError(`${target}: no search index and no WARC files to build one from`);
  return dir;
}

function intOption(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  return n;
}

/** Rank, title, URL, capture time and status, then the snippet with the matched words bold (a terminal) or in [brackets]. */
export function formatResult(query: string, r: SearchResponse, offset: number, tty: boolean): string {
  const lines = [`${r.total} page${r.total === 1 ? '' : 's'} match ${JSON.stringify(query)} (${r.tookMs} ms)`];
  r.hits.forEach((h, i) => {
    lines.push('', `${String(offset + i + 1).padStart(3)}. ${h.title || '(no title)'}`, `     ${h.url}`, `     ${h.timestamp}  ${h.status}  ${h.mime}  score ${scoreText(h.score)}`);
    if (h.snippet) lines.push(`     ${snippetText(h.snippet, tty)}`);
  });
  return lines.join('\n') + '\n';
}

/** `7.413`, `0.0213`, `2.31e-6`: a tiny score stays apart from the next one instead of reading 0. */
export function scoreText(score: number): string {
  return score !== 0 && Math.abs(score) < 1e-3 ? score.toExponential(2) : String(score);
}

function snippetText(html: string, tty: boolean): string {
  const [open, close] = tty ? ['\x1b[1m', '\x1b[0m'] : ['[', ']'];
  return html
    .replaceAll('<mark>', open)
    .replaceAll('</mark>', close)
    .replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!);
}
