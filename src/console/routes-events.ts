/**
 * GET /api/events?job= — the live view as Server-Sent Events: `status`
 * once at the start, then `progress` every tick (the status and the speed
 * sample for the chart), `capture`, `failure`, `state`, and `host` when a
 * host starts waiting or is closed. A finished job sends its status and
 * nothing more (the stream stays open, as EventSource expects). A crawl of
 * other processes seen through its store (`serve --store`) sends its
 * status, progress and state as serve reads them.
 */
import { apiStatus } from './api-shapes.js';
import type { ConsoleDeps } from './console-deps.js';
import { EventStream } from './event-stream.js';
import { iso } from './http-io.js';
import { reportStatus } from './job-reports.js';
import { jobCrawlLogTail } from './crawl-log-tail.js';

/** Log lines read each second for a crawl seen through its store (more in a second are skipped on the live view; the tail has them). */
const STORE_LOG_LINES = 200;
import type { Route } from './router.js';

export function eventRoutes(d: ConsoleDeps, onServerClose: (fn: () => void) => void): Route[] {
  const open = new Set<EventStream>();
  onServerClose(() => {
    for (const s of open) s.close();
  });
  return [
    {
      method: 'GET',
      path: '/api/events',
      access: 'token',
      handler: async (ctx) => {
        const ref = await d.catalog.resolve(ctx.query.string('job'));
        const stream = new EventStream(ctx.res);
        open.add(stream);
        stream.onClose(() => open.delete(stream));
        if (ref.store !== undefined) {
          // A crawl of other processes: its status each time serve reads the store (once a second), and the lines its nodes logged since, as captures and failures.
          const store = ref.store;
          const first = store.lastStatus() ?? (await store.status());
          stream.send('status', { ...first });
          let state = first.state;
          let logged = (await jobCrawlLogTail(ref.dir, 1)).at(-1)?.time ?? '';
          const off = store.onReport((status, sample) => {
            if (sample !== null) stream.send('progress', { status, sample });
            if (status.state !== state) stream.send('state', { state: (state = status.state), endReason: status.endReason, status });
            void jobCrawlLogTail(ref.dir, STORE_LOG_LINES).then((lines) => {
              for (const line of lines.filter((l) => l.time > logged)) stream.offer(line.status < 0 ? 'failure' : 'capture', { ...line });
              logged = lines.at(-1)?.time ?? logged;
            }, () => undefined);
          });
          stream.onClose(off);
          return;
        }
        const live = ref.live;
        if (live === null) {
          const report = await reportStatus(ref.name, ref.dir);
          if (report !== null) stream.send('status', { ...report });
          return;
        }
        const crawl = live.crawl;
        stream.send('status', { ...apiStatus(ref.name, crawl.status()) });
        const off = [
          live.onSample((sample, status) => stream.send('progress', { status: apiStatus(ref.name, status), sample })),
          crawl.events.on('capture', (e) => stream.offer('capture', { url: e.url, status: e.status, mime: e.mime, size: e.size, time: iso(e.time), hopPath: e.hopPath, via: e.via, duplicate: e.duplicate, ...(e.rendered ? { rendered: true } : {}) })),
          crawl.events.on('failure', (e) => stream.offer('failure', { url: e.url, status: e.status, time: iso(e.time), hopPath: e.hopPath, via: e.via, annotations: e.annotations })),
          crawl.events.on('state', (e) => stream.send('state', { state: e.state, endReason: e.endReason, status: apiStatus(ref.name, crawl.status()) })),
          crawl.events.on('hostWaiting', (e) => stream.send('host', { host: e.host, waiting: { reason: e.reason, until: iso(e.until), retry: e.retry, of: e.of } })),
          crawl.events.on('hostClosed', (e) => stream.send('host', { host: e.host, closed: { status: e.status, cause: e.cause } })),
        ];
        stream.onClose(() => {
          for (const stop of off) stop();
        });
      },
    },
  ];
}
