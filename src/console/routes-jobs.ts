/**
 * The jobs: GET /api/jobs lists them (running ones and those on disk);
 * under `archiver serve`, GET /api/profiles lists the profiles a job can be
 * started from and POST /api/jobs {"profile"} starts one in this process.
 */
import type { ConsoleDeps } from './console-deps.js';
import { badRequest, ConsoleError } from './console-errors.js';
import { readJsonBody, sendJson } from './http-io.js';
import type { Route } from './router.js';

export function jobRoutes(d: ConsoleDeps): Route[] {
  const starter = () => {
    if (d.starter === null) throw new ConsoleError(404, 'ARCHIVER_CONSOLE_NOT_FOUND', 'this console starts no jobs (archiver serve does)');
    return d.starter;
  };
  return [
    { method: 'GET', path: '/api/jobs', access: 'token', handler: async (ctx) => sendJson(ctx.res, 200, await d.catalog.list()) },
    { method: 'GET', path: '/api/profiles', access: 'token', handler: async (ctx) => sendJson(ctx.res, 200, await starter().profiles()) },
    {
      method: 'POST',
      path: '/api/jobs',
      access: 'token',
      handler: async (ctx) => {
        const profile = (await readJsonBody(ctx.req))['profile'];
        if (typeof profile !== 'string' || profile === '') throw badRequest('profile must name a profile file');
        const job = await starter().start(profile);
        sendJson(ctx.res, 201, { job: job.name, state: job.crawl.status().state });
      },
    },
  ];
}
