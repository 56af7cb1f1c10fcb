/**
 * Turns `archiver replay` inputs into what the viewer loads: one WACZ as
 * itself; several WACZs as a multi-WACZ collection (a JSON list the viewer
 * loads as one archive, so a revisit in a later crawl's package finds its
 * original in the earlier one's); WARCs as one concatenated .warc(.gz). A
 * job directory counts as its WACZ when it has one, else as its WARCs.
 */
import path from 'node:path';
import { Readable } from 'node:stream';
import { UsageError } from '../core/errors.js';
import { jobWaczName } from '../job/job-dir.js';
import { resolveInputs } from '../inputs/inputs.js';
import { ConcatenatedFiles, type ByteSource } from './byte-source.js';

export interface ReplaySources {
  /** Name under /archive/ → bytes. */
  files: Map<string, ByteSource>;
  /** The name under /archive/ the viewer opens. */
  entry: string;
  /** The inputs, for the operator. */
  describe: string[];
}

const WACZ_TYPE = 'application/wacz';

export async function replaySources(args: readonly string[], cwd = process.cwd()): Promise<ReplaySources> {
  const waczs: string[] = [];
  const warcs: string[] = [];
  for (const arg of args) {
    const resolved = await resolveInputs([arg], cwd);
    const job = resolved.jobs[0];
    const packaged = job === undefined ? null : await jobWaczName(job);
    if (job !== undefined && packaged !== null) waczs.push(path.join(job, packaged));
    else {
      waczs.push(...resolved.waczs);
      warcs.push(...resolved.warcs);
    }
  }
  if (waczs.length > 0 && warcs.length > 0) {
    throw new UsageError('replay takes either WACZ packages (or jobs that have one) or WARC files, not both at once');
  }
  const files = new Map<string, ByteSource>();
  if (waczs.length > 0) {
    const names = uniqueNames(waczs);
    for (const [name, file] of names) files.set(name, await ConcatenatedFiles.of([file], WACZ_TYPE));
    if (names.size === 1) return { files, entry: [...names.keys()][0]!, describe: waczs };
    const collection = {
      profile: 'multi-wacz-package',
      resources: [...names.keys()].map((name) => ({ name, path: name })),
    };
    files.set('collection.json', jsonSource(collection));
    return { files, entry: 'collection.json', describe: waczs };
  }
  const gz = warcs.filter((w) => w.endsWith('.gz'));
  if (gz.length > 0 && gz.length < warcs.length) {
    throw new UsageError('replay cannot serve gzipped and plain WARC files as one archive; give one kind');
  }
  const entry = gz.length > 0 ? 'archive.warc.gz' : 'archive.warc';
  files.set(entry, await ConcatenatedFiles.of(warcs, 'application/warc'));
  return { files, entry, describe: warcs };
}

/** Base names, made unique (the viewer names each package of a collection by it). */
function uniqueNames(files: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of files) {
    const base = path.basename(file);
    let name = base;
    for (let i = 2; out.has(name); i++) name = base.replace(/\.wacz$/, `-${i}.wacz`);
    out.set(name, file);
  }
  return out;
}

function jsonSource(doc: unknown): ByteSource {
  const bytes = Buffer.from(JSON.stringify(doc), 'utf8');
  return {
    size: bytes.length,
    contentType: 'application/json',
    stream(start, end) {
      return Readable.from([bytes.subarray(start, end + 1)]);
    },
  };
}
