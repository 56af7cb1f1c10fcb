/**
 * Shared by the index, WACZ and replay tests: crawls the fixture web into a
 * job directory with the real crawler, then packages it, and reads records
 * straight out of WARC bytes at an offset (node:zlib, not warcio) so the
 * index is checked against the file itself.
 */
import { copyFile, open } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import type { FixtureWeb } from '../../src/demo/fixture-web.js';
import { finalizeJob, waczFileName, type FinalizedJob } from '../../src/wacz/finalize-job.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';

export async function crawlJob(
  web: FixtureWeb,
  root: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ dir: string; job: FinalizedJob; crawlWacz: string | null }> {
  const dir = path.join(root, name);
  const profile = validateProfile(testProfileJson(name, web.seeds, dir, extra), name);
  await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  // The package the crawl's own end made (its page list and index made during the crawl), kept
  // beside the job before finalizeJob makes it again from the journal.
  const own = path.join(dir, waczFileName(name));
  const crawlWacz = path.join(root, `${name}.crawl.wacz`);
  const kept = await copyFile(own, crawlWacz).then(() => true, () => false);
  const job = await finalizeJob({ jobDir: dir, name, software: 'archiver-test', seeds: web.seeds });
  return { dir, job, crawlWacz: kept ? crawlWacz : null };
}

export interface RawRecord {
  /** `WARC/1.0` or `WARC/1.1`. */
  version: string;
  warcHeaders: Map<string, string>;
  /** The record block (HTTP head + payload for a response). */
  block: Buffer;
}

/** Inflate exactly [offset, offset+length) of a file and parse it as one WARC record; throws if it is not exactly one. */
export async function recordAt(file: string, offset: number, length: number): Promise<RawRecord> {
  const fh = await open(file, 'r');
  let member: Buffer;
  try {
    member = Buffer.alloc(length);
    const { bytesRead } = await fh.read(member, 0, length, offset);
    if (bytesRead !== length) throw new Error(`short read at ${offset}`);
  } finally {
    await fh.close();
  }
  const raw = gunzipSync(member);
  const headEnd = raw.indexOf('\r\n\r\n');
  const lines = raw.subarray(0, headEnd).toString('utf8').split('\r\n');
  if (!/^WARC\/1\.[01]$/.test(lines[0] ?? '')) throw new Error(`no WARC record at ${offset}`);
  const warcHeaders = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    warcHeaders.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const contentLength = Number(warcHeaders.get('content-length'));
  const block = raw.subarray(headEnd + 4, headEnd + 4 + contentLength);
  // One record and nothing else: block, then the CRLF CRLF that ends a record.
  if (raw.length !== headEnd + 4 + contentLength + 4 || raw.subarray(raw.length - 4).toString() !== '\r\n\r\n') {
    throw new Error(`bytes at ${offset}+${length} are not exactly one record`);
  }
  return { version: lines[0]!, warcHeaders, block };
}
