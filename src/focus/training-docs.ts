/**
 * Training documents read from disk: a job directory (its `warcs/`), a
 * directory of WARC files (walked), or WARC files, read with the reader the
 * search index uses for WARCs (src/search/page-sources.ts: every 2xx HTML
 * response not marked noindex, title and visible text extracted as for
 * pages.jsonl). A path that holds no WARC is an error (ARCHIVER_NO_INPUT,
 * exit 4), as for `dedup.against`.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { jobDir } from '../job/job-dir.js';
import { expandInputs } from '../inputs/inputs.js';
import { warcPages } from '../search/page-sources.js';
import type { FocusDocument } from './topic-model.js';

const WARC_NAME = /\.warc(\.gz)?$/i;
/** Pages read at most: a topic is learnt from examples, and each is held until it is. */
export const MAX_TRAINING_DOCS = 10_000;

/** Whether a `focus.training` entry is a URL to fetch (else a path to read). */
export function isTrainingUrl(entry: string): boolean {
  return /^https?:\/\//i.test(entry);
}

/** The pages of every WARC under `paths`, in path order then file order, the first MAX_TRAINING_DOCS (`notice` told of the rest). */
export async function readTrainingDocs(paths: readonly string[], notice?: (line: string) => void): Promise<FocusDocument[]> {
  const docs: FocusDocument[] = [];
  let skipped = 0;
  for (const given of paths) {
    const files = await warcFilesOf(given);
    if (files.length === 0) throw new NoInputError(`focus.training: ${given} holds no WARC file`);
    for (const file of files) {
      await warcPages(file, async (page) => {
        if (docs.length < MAX_TRAINING_DOCS) docs.push({ title: page.title === '' ? null : page.title, text: page.text });
        else skipped++;
      });
    }
  }
  if (skipped > 0) notice?.(`archiver: focus: the topic is learnt from the first ${MAX_TRAINING_DOCS} training pages read; ${skipped} more were left out`);
  return docs;
}

/** WARC files of a job directory, a directory or a file (WARCs inside a WACZ are not read here). */
async function warcFilesOf(given: string): Promise<string[]> {
  const warcs = jobDir(given).warcs;
  const isJob = await stat(warcs).then((s) => s.isDirectory(), () => false);
  const { files, missing } = await expandInputs([isJob ? warcs : given]);
  if (missing.length > 0) throw new NoInputError(`focus.training: cannot read ${missing[0]!.path} (${missing[0]!.reason})`);
  return files.map((f) => (typeof f === 'string' ? f : f.start === 0 && f.length === null ? f.path : null)).filter((f): f is string => f !== null && WARC_NAME.test(f));
}
