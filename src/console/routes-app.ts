/**
 * The page app: `/` and `/app/<file>` (public: the files hold no data),
 * and POST /api/session, which trades the token (from the page's URL
 * fragment, sent as a Bearer header) for an HttpOnly cookie, so the
 * page's EventSource and replay frame carry it too; it answers with what
 * the page needs to know about this console.
 */
import type { ConsoleDeps } from './console-deps.js';
import { sendJson } from './http-io.js';
import type { Route } from './router.js';
import { appDir, StaticFiles } from './static-files.js';

/** The page loads nothing from elsewhere, and nothing may frame it. */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Frame-Options': 'DENY',
};

export function appRoutes(d: ConsoleDeps): Route[] {
  let files: Promise<StaticFiles> | null = null;
  const app = (): Promise<StaticFiles> => (files ??= StaticFiles.of(appDir()));
  return [
    { method: 'GET', path: '/', access: 'public', handler: async (ctx) => (await app()).send(ctx.req, ctx.res, 'index.html', PAGE_HEADERS) },
    { method: 'GET', path: '/app/', prefix: true, access: 'public', handler: async (ctx) => (await app()).send(ctx.req, ctx.res, ctx.rest, PAGE_HEADERS) },
    {
      method: 'POST',
      path: '/api/session',
      access: 'token',
      handler: (ctx) =>
        sendJson(
          ctx.res,
          200,
          { job: d.catalog.defaultJob, startsJobs: d.starter !== null, search: d.search !== null },
          { 'Set-Cookie': d.guard.sessionCookie() },
        ),
    },
  ];
}
