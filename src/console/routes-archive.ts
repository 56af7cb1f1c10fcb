/**
 * The archive of a job: GET /api/captures lists its captures a page at a
 * time (newest first by default, or the HTML pages only), GET /api/page
 * tells one capture's details — status, type, size, digest, time, its
 * outlinks (from its WARC metadata record), the pages linking to it (the
 * inlinks index, once the job is finished) and its PageRank (once the job
 * was analysed).
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { isoFromTimestamp14 } from '../index/cdxj.js';
import { captureJournalPath, jobDir, jobIndexPath } from '../job/job-dir.js';
import { locateInIndex, locateInJournal } from './capture-locator.js';
import { readCaptureRecords } from './capture-records.js';
import type { ConsoleDeps } from './console-deps.js';
import { badRequest, notFound } from './console-errors.js';
import { sendJson } from './http-io.js';
import { pagerankOf } from './pagerank-lookup.js';
import type { Route } from './router.js';

const MAX_PAGE = 500;
const MAX_LINKS = 500;

export function archiveRoutes(d: ConsoleDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/captures',
      access: 'token',
      handler: async (ctx) => {
        const ref = await d.catalog.resolve(ctx.query.string('job'));
        const page = await d.archive.captures(ref.dir).page({
          offset: ctx.query.int('offset', 0, 0, Number.MAX_SAFE_INTEGER),
          limit: ctx.query.int('limit', 50, 1, MAX_PAGE),
          pagesOnly: ctx.query.oneOf('pages', ['0', '1'] as const, '0') === '1',
          newestFirst: ctx.query.oneOf('order', ['newest', 'oldest'] as const, 'newest') === 'newest',
        });
        sendJson(ctx.res, 200, page);
      },
    },
    {
      method: 'GET',
      path: '/api/page',
      access: 'token',
      handler: async (ctx) => {
        const ref = await d.catalog.resolve(ctx.query.string('job'));
        const url = ctx.query.string('url');
        if (url === null) throw badRequest('url is required');
        const ts = ctx.query.string('ts');
        if (ts !== null && !/^\d{14}$/.test(ts)) throw badRequest('ts must be a 14-digit timestamp');
        const index = jobIndexPath(ref.dir);
        const indexed = ref.live === null && (await access(index).then(() => true, () => false));
        const found = indexed ? await locateInIndex(index, url, ts) : await locateInJournal(captureJournalPath(ref.dir), url, ts);
        if (found === null) throw notFound(`no capture of ${url} in job ${ref.name}`);
        const records = await readCaptureRecords(jobDir(ref.dir).warcs, found.filename, found.offset, MAX_LINKS);
        const inlinks = ref.live === null ? d.archive.inlinks(ref.dir) : null;
        const inlinksState = inlinks === null ? 'unavailable' : await inlinks.state();
        const linked = inlinks !== null && inlinksState === 'ready' ? await inlinks.lookup(url, MAX_LINKS) : null;
        sendJson(ctx.res, 200, {
          url: found.url,
          timestamp: isoFromTimestamp14(found.timestamp),
          ts: found.timestamp,
          status: found.status,
          mime: found.mime,
          // A revisit stores no payload: its size is what was fetched, which the journal knows.
          size: found.size ?? (found.revisit ? null : (records?.size ?? null)),
          digest: found.digest,
          revisit: found.revisit,
          title: found.title,
          outlinks: records?.outlinks ?? [],
          outlinkCount: records?.outlinkCount ?? 0,
          inlinks: linked?.inlinks ?? null,
          inlinkCount: linked?.count ?? null,
          inlinksState,
          pagerank: await pagerankOf(ref.dir, url),
        });
      },
    },
  ];
}
