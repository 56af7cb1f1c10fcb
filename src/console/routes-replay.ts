/**
 * The embedded replay, under /replay/: ReplayWeb.page's ui.js and service
 * worker sw.js (served unmodified from the `replaywebpage` package, as
 * `archiver replay` does; the worker's scope is /replay/), and the job
 * archives it reads by byte ranges from /replay/archive/<job>/<name>
 * (token required: the page's cookie). GET /api/replay?job= names the
 * archive to load.
 *
 * The small page that hosts the <replay-web-page> element (app/replay.html)
 * lives at /embed/, OUTSIDE the worker's scope: under it, its second load
 * came from the worker with ReplayWeb.page's own CSP, whose frame-src
 * refuses the viewer frame, and every capture after the first failed to
 * show. It may be framed by the console page only.
 */
import { REPLAY_APP_HTML, replayWebPageDir, sendSource } from '../replay/replay-server.js';
import type { ConsoleDeps } from './console-deps.js';
import { notFound } from './console-errors.js';
import { sendJson, sendPage } from './http-io.js';
import { checkJobName } from './job-catalog.js';
import { jobReplayArchive, type ReplayArchive } from './replay-source.js';
import type { Route } from './router.js';
import { appDir, StaticFiles } from './static-files.js';

/** The replay host page may be framed by the console's own page, by nothing else. */
const EMBED_HEADERS = { 'Content-Security-Policy': "frame-ancestors 'self'" };

/** Snapshots kept per job: the viewer may still read an older one for a while. */
const SNAPSHOTS_PER_JOB = 4;

export function replayRoutes(d: ConsoleDeps): Route[] {
  let viewer: Promise<StaticFiles> | null = null;
  let host: Promise<StaticFiles> | null = null;
  const archives = new Map<string, ReplayArchive[]>();
  const remember = (job: string, archive: ReplayArchive): void => {
    const list = (archives.get(job) ?? []).filter((a) => a.name !== archive.name);
    list.push(archive);
    archives.set(job, list.slice(-SNAPSHOTS_PER_JOB));
  };
  return [
    {
      method: 'GET',
      path: '/api/replay',
      access: 'token',
      handler: async (ctx) => {
        const ref = await d.catalog.resolve(ctx.query.string('job'));
        const archive = await jobReplayArchive(ref.dir, ref.live !== null);
        if (archive === null) throw notFound(`job ${ref.name} has no WARCs to replay yet`);
        remember(ref.name, archive);
        sendJson(ctx.res, 200, { source: `/replay/archive/${encodeURIComponent(ref.name)}/${encodeURIComponent(archive.name)}`, kind: archive.name.endsWith('.wacz') ? 'wacz' : 'warc' });
      },
    },
    {
      method: 'GET',
      path: '/replay/archive/',
      prefix: true,
      access: 'token',
      handler: async (ctx) => {
        const [job, name, ...extra] = ctx.rest.split('/').map(safeDecode);
        if (job === undefined || name === undefined || extra.length > 0) throw notFound('no such archive');
        const ref = await d.catalog.resolve(checkJobName(job));
        let archive = archives.get(ref.name)?.find((a) => a.name === name);
        if (archive === undefined) {
          // A finished job's WACZ needs no /api/replay call first (a reloaded viewer asks for it directly).
          const current = await jobReplayArchive(ref.dir, ref.live !== null);
          if (current === null || current.name !== name) throw notFound('no such archive');
          remember(ref.name, current);
          archive = current;
        }
        sendSource(ctx.req, ctx.res, archive.source);
      },
    },
    {
      method: 'GET',
      path: '/replay/',
      prefix: true,
      access: 'public',
      handler: async (ctx) => {
        if (ctx.rest === 'ui.js' || ctx.rest === 'sw.js') return (await (viewer ??= StaticFiles.of(replayWebPageDir(), ['ui.js', 'sw.js']))).send(ctx.req, ctx.res, ctx.rest);
        if (ctx.rest !== '' && ctx.rest !== 'index.html') throw notFound('no such file');
        sendPage(ctx.res, REPLAY_APP_HTML);
      },
    },
    {
      method: 'GET',
      path: '/embed/',
      prefix: true,
      access: 'public',
      handler: async (ctx) => {
        const page = ctx.rest === 'replay.html' || ctx.rest === 'replay.js' ? ctx.rest : null;
        if (page === null) throw notFound('no such file');
        (await (host ??= StaticFiles.of(appDir(), ['replay.html', 'replay.js']))).send(ctx.req, ctx.res, page, EMBED_HEADERS);
      },
    },
  ];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return '';
  }
}
