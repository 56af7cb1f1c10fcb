/**
 * A journaled capture's CDXJ entry: what indexWarcFile reads from the
 * record itself, taken from the capture journal's line instead.
 */
import { entryFor, REVISIT_MIME, type CdxjEntry } from '../index/cdxj.js';
import type { JournaledCapture } from '../job/capture-journal.js';

/** The CDXJ entry of a journaled capture: what indexWarcFile reads from the record. */
export function cdxjEntryOf(c: Omit<JournaledCapture, 'text'>): CdxjEntry {
  return entryFor({
    url: c.url,
    warcDate: c.date,
    mime: c.revisit ? REVISIT_MIME : c.mime === '' ? 'unk' : c.mime,
    status: c.status,
    digest: c.digest,
    length: c.length,
    offset: c.offset,
    filename: c.filename,
    ...(c.method !== undefined ? { method: c.method, requestBody: c.requestBody ?? '' } : {}),
  });
}
