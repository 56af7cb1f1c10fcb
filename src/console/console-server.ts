/**
 * The web console's HTTP server: one page app and a JSON API over the jobs
 * of a JobCatalog (a crawl running in this process, and finished jobs on
 * disk), with the replay of their archives. Every request passes the
 * access guard first (its Host, then for a POST its Origin, then, unless
 * the route serves the page's own files, the token); then the route table
 * decides. Errors answer as `{"error": {code, message}}` with their status.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AccessGuard, consoleHostNames, newToken } from './access-guard.js';
import type { ArchiveSearch } from './archive-search.js';
import { ConsoleError, ConsoleListenError } from './console-errors.js';
import { Query, sendError, sendJson } from './http-io.js';
import type { JobCatalog } from './job-catalog.js';
import { Router, type Route } from './router.js';
import { archiveRoutes } from './routes-archive.js';
import { appRoutes } from './routes-app.js';
import { cdxRoutes } from './routes-cdx.js';
import { crawlRoutes } from './routes-crawl.js';
import { eventRoutes } from './routes-events.js';
import { jobRoutes } from './routes-jobs.js';
import type { ConsoleDeps, JobStarter } from './console-deps.js';
import { replayRoutes } from './routes-replay.js';
import { searchRoutes } from './routes-search.js';
import { ArchiveResources } from './archive-resources.js';
import { listenFailure } from '../core/listen-failure.js';

export const DEFAULT_CONSOLE_PORT = 8480;

export interface ConsoleServerOptions {
  catalog: JobCatalog;
  /** The full-text search engine; absent, /api/search answers 503. */
  search?: ArchiveSearch;
  /** Starts a job from a profile (serve); absent, the page offers no form. */
  starter?: JobStarter;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8480; 0 picks a free port. */
  port?: number;
  /** The option that sets the port, named when it is in use; default `--port`. */
  portFlag?: string;
  /** Default: a new random one. */
  token?: string;
  /** Where a handler's unexpected failure is reported (the client gets a bare 500). */
  log?: NodeJS.WritableStream;
}

export type { ConsoleDeps, JobStarter } from './console-deps.js';

export class ConsoleServer {
  readonly token: string;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #log: NodeJS.WritableStream | null;
  #router: Router | null = null;
  #guard: AccessGuard | null = null;
  #origin = '';
  /** Called on close: streams (events) to end. */
  readonly #onClose = new Set<() => void>();

  private constructor(token: string, log: NodeJS.WritableStream | null) {
    this.token = token;
    this.#log = log;
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(opts: ConsoleServerOptions): Promise<ConsoleServer> {
    const token = opts.token ?? newToken();
    const server = new ConsoleServer(token, opts.log ?? null);
    const host = opts.host ?? '127.0.0.1';
    const port = opts.port ?? DEFAULT_CONSOLE_PORT;
    await new Promise<void>((resolve, reject) => {
      server.#server.once('error', (err) =>
        reject(new ConsoleListenError(`the console ${listenFailure(`${host}:${port}`, err, opts.portFlag ?? '--port')}`, { cause: err })),
      );
      server.#server.listen(port, host, () => resolve());
    });
    const addr = server.#server.address();
    const bound = typeof addr === 'object' && addr !== null ? addr.port : port;
    const shown = host.includes(':') ? `[${host}]` : host;
    server.#origin = `http://${shown}:${bound}`;
    const guard = new AccessGuard({ token, hosts: consoleHostNames(host, bound), port: bound });
    const deps: ConsoleDeps = { catalog: opts.catalog, search: opts.search ?? null, starter: opts.starter ?? null, archive: new ArchiveResources(), guard };
    server.#guard = guard;
    server.#router = new Router().add(
      ...appRoutes(deps),
      ...crawlRoutes(deps),
      ...jobRoutes(deps),
      ...archiveRoutes(deps),
      ...searchRoutes(deps),
      ...cdxRoutes(deps),
      ...eventRoutes(deps, (fn) => server.#onClose.add(fn)),
      ...replayRoutes(deps),
    );
    return server;
  }

  /** `http://127.0.0.1:8480` */
  get origin(): string {
    return this.#origin;
  }

  get port(): number {
    return Number(new URL(this.#origin).port);
  }

  /** What to open: the page, with the token in the fragment (never sent to the server, never logged). */
  get url(): string {
    return `${this.#origin}/#token=${this.token}`;
  }

  async close(): Promise<void> {
    for (const fn of this.#onClose) fn();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const guard = this.#guard!;
      guard.checkHost(req);
      const url = new URL(req.url ?? '/', this.#origin);
      const match = this.#router!.match(req.method ?? 'GET', url.pathname);
      if (match.kind === 'none') throw new ConsoleError(404, 'ARCHIVER_CONSOLE_NOT_FOUND', `no such path: ${url.pathname}`);
      if (match.kind === 'method') {
        sendError(res, new ConsoleError(405, 'ARCHIVER_CONSOLE_METHOD', `${req.method} is not allowed here`), { Allow: match.allow.join(', ') });
        return;
      }
      const route: Route = match.route;
      if (route.method === 'POST') guard.checkOrigin(req);
      if (route.access === 'token') guard.requireAuth(req);
      await route.handler({ req, res, url, query: new Query(url.searchParams), rest: match.rest });
    } catch (err) {
      if (err instanceof ConsoleError) {
        sendError(res, err);
        return;
      }
      this.#log?.write(`archiver console: ${req.method} ${(req.url ?? '').split('?')[0]} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: { code: 'ARCHIVER_CONSOLE_INTERNAL', message: 'internal error (see the console log)' } });
    }
  }
}
