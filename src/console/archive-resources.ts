/**
 * Per-job helpers the archive routes keep between requests: the capture
 * list (its journal marks) and the inlinks index (its build). One of each
 * per job directory, made on first use.
 */
import { captureJournalPath } from '../job/job-dir.js';
import { CaptureList } from './capture-list.js';
import { InlinksIndex } from './inlinks-index.js';

export class ArchiveResources {
  readonly #captures = new Map<string, CaptureList>();
  readonly #inlinks = new Map<string, InlinksIndex>();

  captures(jobDir: string): CaptureList {
    let list = this.#captures.get(jobDir);
    if (list === undefined) {
      list = new CaptureList(captureJournalPath(jobDir));
      this.#captures.set(jobDir, list);
    }
    return list;
  }

  inlinks(jobDir: string): InlinksIndex {
    let index = this.#inlinks.get(jobDir);
    if (index === undefined) {
      index = new InlinksIndex(jobDir);
      this.#inlinks.set(jobDir, index);
    }
    return index;
  }
}
