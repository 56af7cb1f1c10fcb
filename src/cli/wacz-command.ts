/**
 * `archiver wacz <job> [--name N]`: (re)builds the job's CDXJ index and its
 * WACZ package, as `run` does at the end of every crawl.
 */
import path from 'node:path';
import { SOFTWARE } from '../crawl/crawler.js';
import { UsageError } from '../core/errors.js';
import { jobWaczName } from '../job/job-dir.js';
import { resolveInputs } from '../index/inputs.js';
import { finalizeJob } from '../wacz/finalize-job.js';
import type { CliIo } from './io.js';
import { parseCommandArgs } from './parse-options.js';
import { ExitCode } from './exit-codes.js';

export const waczHelp = `archiver wacz <job-dir> [options]

Packages a job as WACZ 1.1.1 (<job>/<name>.wacz): its WARCs (stored), the
CDXJ index, pages/pages.jsonl (every captured HTML page with title and text,
for the viewer's page list and search), datapackage.json with the sha256 and
size of every file, and datapackage-digest.json. Rewrites
<job>/indexes/index.cdxj too. Open the package with \`archiver replay\` or at
https://replayweb.page.

Options:
  --name NAME      package name (default: the job's existing package, else the directory name)
  -h, --help       this text
`;

export async function waczMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { name: { type: 'string' } });
  if (values.help) {
    io.stdout.write(waczHelp);
    return ExitCode.ok;
  }
  if (positionals.length !== 1) throw new UsageError('wacz takes exactly one job directory (see archiver wacz --help)');
  const inputs = await resolveInputs(positionals);
  const job = inputs.jobs[0];
  if (job === undefined) throw new UsageError(`${positionals[0]}: wacz packages a job directory (one with warcs/)`);
  const existing = await jobWaczName(job);
  const name = values.name ?? (existing !== null ? existing.replace(/\.wacz$/, '') : path.basename(job));
  const done = await finalizeJob({ jobDir: job, name, software: SOFTWARE });
  io.stderr.write(`archiver: ${done.captures} captures, ${done.pages} pages → ${done.wacz} (index: ${done.cdxj})\n`);
  return ExitCode.ok;
}
