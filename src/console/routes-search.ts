/**
 * GET /api/search?job=&q=&limit=&offset=&host=&mime=&status= — full-text
 * search over a job's archive through the engine the console was given;
 * 503 when it was given none.
 */
import type { ConsoleDeps } from './console-deps.js';
import { badRequest, ConsoleError } from './console-errors.js';
import { sendJson } from './http-io.js';
import type { Route } from './router.js';

const MAX_LIMIT = 100;
const MAX_QUERY_CHARS = 1000;

export function searchRoutes(d: ConsoleDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/search',
      access: 'token',
      handler: async (ctx) => {
        const ref = await d.catalog.resolve(ctx.query.string('job'));
        const q = ctx.query.string('q');
        if (q === null) throw badRequest('q is required');
        if (q.length > MAX_QUERY_CHARS) throw badRequest(`q is longer than ${MAX_QUERY_CHARS} characters`);
        const limit = ctx.query.int('limit', 20, 1, MAX_LIMIT);
        const offset = ctx.query.int('offset', 0, 0, 1_000_000);
        const status = ctx.query.optionalInt('status', 100, 599);
        const host = ctx.query.string('host');
        const mime = ctx.query.string('mime');
        if (d.search === null) throw new ConsoleError(503, 'ARCHIVER_CONSOLE_NO_SEARCH', 'no search engine is wired into this console');
        const result = await d.search.search(ref.dir, q, {
          limit,
          offset,
          ...(host !== null ? { host } : {}),
          ...(mime !== null ? { mime } : {}),
          ...(status !== null ? { status } : {}),
        });
        sendJson(ctx.res, 200, result);
      },
    },
  ];
}
