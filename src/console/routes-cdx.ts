/**
 * GET /cdx — pywb's CDX server API over a job's index (see cdx-query.ts):
 * from index.cdxj once the job is finished, from the capture journal while
 * a crawl writes it. Lines are streamed as they are found.
 */
import { access } from 'node:fs/promises';
import { captureJournalPath, jobIndexPath } from '../job/job-dir.js';
import { formatCdxAnswer, parseCdxQuery, queryIndex, queryJournal } from './cdx-query.js';
import type { ConsoleDeps } from './console-deps.js';
import { COMMON_HEADERS, writeChunk } from './http-io.js';
import type { Route } from './router.js';

export function cdxRoutes(d: ConsoleDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/cdx',
      access: 'token',
      handler: async (ctx) => {
        const ref = await d.catalog.resolve(ctx.query.string('job'));
        const q = parseCdxQuery({
          url: ctx.query.string('url'),
          matchType: ctx.query.string('matchType'),
          from: ctx.query.string('from'),
          to: ctx.query.string('to'),
          filters: ctx.query.all('filter'),
          sort: ctx.query.string('sort'),
          limit: ctx.query.optionalInt('limit', 1, Number.MAX_SAFE_INTEGER),
          fl: ctx.query.string('fl'),
          output: ctx.query.string('output'),
        });
        const index = jobIndexPath(ref.dir);
        const fromIndex = ref.live === null && (await access(index).then(() => true, () => false));
        const lines = fromIndex ? queryIndex(index, q) : queryJournal(captureJournalPath(ref.dir), q);
        const type = q.output === 'json' ? 'application/x-ndjson' : 'text/x-cdxj';
        ctx.res.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': `${type}; charset=utf-8` });
        if (ctx.req.method === 'HEAD') return void ctx.res.end();
        for await (const line of lines) {
          if (!(await writeChunk(ctx.res, formatCdxAnswer(q, line)))) break;
        }
        ctx.res.end();
      },
    },
  ];
}
