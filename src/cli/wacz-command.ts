/**
 * `archiver wacz <job> [--name N]`: (re)builds the job's CDXJ index and its
 * WACZ package, as `run` does at the end of every crawl.
 */
import path from 'node:path';
import { SOFTWARE } from '../crawl/crawl-parts.js';
import { UsageError } from '../core/errors.js';
import { jobWaczName } from '../job/job-dir.js';
import { resolveInputs } from '../inputs/inputs.js';
import { finalizeJob } from '../wacz/finalize-job.js';
import { WarcDamagedError } from '../warc/warc-damage.js';
import { damageRefusal, warnDamage } from './damage-report.js';
import type { CliIo } from './io.js';
import { parseCommandArgs } from './parse-options.js';
import { ExitCode } from './exit-codes.js';

export const waczHelp = `archiver wacz <job-dir> [options]

Packages a job as WACZ 1.1.1 (<job>/<name>.wacz): its WARCs (stored), the
CDXJ index, pages/pages.jsonl (every captured HTML page with title and text,
for the viewer's page list and search), datapackage.json with the sha256 and
size of every file, and datapackage-digest.json. Rewrites
<job>/indexes/index.cdxj too. Open the package with \`archiver replay\` or at
https://replayweb.page. \`run\` makes one at the end of every crawl, unless
the profile's output.wacz is false: this makes it then.

A cut or corrupt WARC is reported (file, offset, what was skipped) and
nothing is written, exit 1; with --skip-bad the package is made with what
can be read indexed.

Options:
  --name NAME      package name (default: the job's existing package, else the directory name)
  --skip-bad       package a job whose WARCs are cut or corrupt, indexing what can be read
  -h, --help       this text
`;

export async function waczMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { name: { type: 'string' }, 'skip-bad': { type: 'boolean' } }, 'wacz');
  if (values.help) {
    io.stdout.write(waczHelp);
    return ExitCode.ok;
  }
  if (positionals.length !== 1) throw new UsageError('wacz takes exactly one job directory (see archiver wacz --help)');
  const inputs = await resolveInputs(positionals);
  const job = inputs.jobs[0];
  if (job === undefined) throw new UsageError(`${positionals[0]}: wacz packages a job directory (the one holding warcs/), not WARC files`);
  const existing = await jobWaczName(job);
  const name = values.name ?? (existing !== null ? existing.replace(/\.wacz$/, '') : path.basename(job));
  let done;
  try {
    done = await finalizeJob({ jobDir: job, name, software: SOFTWARE, onDamage: warnDamage(io), skipDamaged: values['skip-bad'] === true });
  } catch (err) {
    if (err instanceof WarcDamagedError) throw damageRefusal(err, 'wacz', 'packages the job with what can be read indexed');
    throw err;
  }
  io.stderr.write(`archiver: ${done.captures} captures, ${done.pages} pages → ${done.wacz} (index: ${done.cdxj})\n`);
  return ExitCode.ok;
}
