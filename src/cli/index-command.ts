/**
 * `archiver index <job|warcs...> [--output file]`: writes the CDXJ index of
 * a job (to `<job>/indexes/index.cdxj`) or of WARC files (to --output, or
 * stdout). `run` does the same at the end of every crawl. For a job it also
 * rebuilds the search index (`<job>/indexes/search/`); `--search <warcs…>
 * -o DIR` builds a search index of WARC files alone.
 */
import { once } from 'node:events';
import { UsageError } from '../core/errors.js';
import { WarcDamagedError } from '../warc/warc-damage.js';
import { damageRefusal, warnDamage } from './damage-report.js';
import { damageGate, sortCdxjOf, writeCdxj, type DamageOptions } from '../index/build-index.js';
import { jobIndexPath } from '../job/job-dir.js';
import { resolveInputs } from '../inputs/inputs.js';
import { buildJobSearchIndex, buildWarcSearchIndex } from '../search/build-search-index.js';
import type { CliIo } from './io.js';
import { parseCommandArgs } from './parse-options.js';
import { ExitCode } from './exit-codes.js';

export const indexHelp = `archiver index <job-dir | file.warc.gz ...> [options]

Writes a CDXJ index (SURT key, 14-digit timestamp, JSON with url, mime,
status, digest, length, offset, filename; revisits as warc/revisit), sorted
bytewise, for replay tools (pywb, ReplayWeb.page) and for dedup.against.

Given one job directory, the index goes to <job>/indexes/index.cdxj, and
the job's search index (<job>/indexes/search/, see archiver search) is
rebuilt from its capture journal and WARCs. Given WARC files, the CDXJ goes
to --output or standard output.

With --search, a full-text search index of the given WARC files (written by
any tool) is built in the directory --output names, instead of a CDXJ; then
archiver search DIR "<query>" searches it.

A cut or corrupt WARC is reported (file, offset, what was skipped) and
nothing is written, exit 1; with --skip-bad the index holds what can be
read, exit 0.

Options:
  -o, --output PATH   where to write the index (a directory with --search)
  --search            build a search index of WARC files (needs --output)
  --skip-bad          index what can be read of cut or corrupt WARCs
  -h, --help          this text

Exit codes: 0 done, 1 damaged WARC input (without --skip-bad), 2 usage,
4 no such file or no WARCs.
`;

export async function indexMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    output: { type: 'string', short: 'o' },
    search: { type: 'boolean' },
    'skip-bad': { type: 'boolean' },
  }, 'index');
  if (values.help) {
    io.stdout.write(indexHelp);
    return ExitCode.ok;
  }
  if (positionals.length === 0) throw new UsageError('index takes a job directory or WARC files (see archiver index --help)');
  const inputs = await resolveInputs(positionals);
  if (inputs.waczs.length > 0) throw new UsageError('index reads WARC files and job directories, not WACZ packages (they carry their index)');
  const onlyJob = inputs.jobs.length === 1 && positionals.length === 1 ? inputs.jobs[0] : undefined;
  const damage = { onDamage: warnDamage(io), skipDamaged: values['skip-bad'] === true };
  try {
    return await writeIndex(inputs.warcs, onlyJob, values.output, values.search === true, damage, io);
  } catch (err) {
    if (err instanceof WarcDamagedError) throw damageRefusal(err, 'index', 'indexes what can be read');
    throw err;
  }
}

async function writeIndex(
  warcs: string[],
  onlyJob: string | undefined,
  output: string | undefined,
  search: boolean,
  damage: DamageOptions,
  io: CliIo,
): Promise<number> {
  if (search) {
    if (output === undefined) throw new UsageError('index --search needs -o DIR, the directory of the search index to build');
    const gate = damageGate(damage);
    // Damage is checked before the new index replaces an old one.
    const built = await buildWarcSearchIndex(warcs, output, gate.onDamage, gate.check);
    io.stderr.write(`archiver: indexed ${built.pages} pages of ${warcs.length} WARC file(s) for search → ${built.dir}\n`);
    return ExitCode.ok;
  }
  const out = output ?? (onlyJob !== undefined ? jobIndexPath(onlyJob) : undefined);
  if (out !== undefined) {
    // Sorted runs go beside the output: the same disk, not a /tmp that may live in RAM.
    const { lines } = await writeCdxj(warcs, out, damage);
    io.stderr.write(`archiver: indexed ${lines} captures of ${warcs.length} WARC file(s) → ${out}\n`);
    if (onlyJob !== undefined && output === undefined) {
      // Damage was told (and accepted) while the CDXJ was written: not again.
      const built = await buildJobSearchIndex(onlyJob, { onDamage: () => {} });
      io.stderr.write(`archiver: indexed ${built.pages} pages for search → ${built.dir}\n`);
    }
    return ExitCode.ok;
  }
  const sorter = await sortCdxjOf(warcs, damage);
  try {
    for await (const batch of sorter.batches()) {
      if (!io.stdout.write(batch.join('\n') + '\n')) await once(io.stdout, 'drain');
    }
  } finally {
    await sorter.close();
  }
  return ExitCode.ok;
}
