/**
 * The replay server: ReplayWeb.page (the `replaywebpage` package's own
 * `ui.js` and service worker `sw.js`, served unmodified) plus the archive,
 * on 127.0.0.1 only. The viewer runs in the browser and reads the archive
 * by byte ranges from `/archive/…`; the archived pages are rendered from it,
 * so opening them sends nothing to the sites they came from.
 */
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { ArchiverError } from '../core/errors.js';
import { parseRange, type ByteSource } from './byte-source.js';
import type { ReplaySources } from './replay-sources.js';
import { listenFailure } from '../core/listen-failure.js';

export interface ReplayServerOptions {
  sources: ReplaySources;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1; the service worker needs localhost or HTTPS. */
  host?: string;
  /** The option that sets the port, named when it is in use; default `--port`. */
  portFlag?: string;
}

export class ReplayServerError extends ArchiverError {}

/** The directory of the installed `replaywebpage` package. */
export function replayWebPageDir(): string {
  const require = createRequire(import.meta.url);
  // index.html is one of the few paths the package exports.
  return path.dirname(require.resolve('replaywebpage/index.html'));
}

/** The viewer's page: ReplayWeb.page's app element over its ui.js (the console serves it too, under /replay/). */
export const REPLAY_APP_HTML = `<!doctype html>
<html class="no-overflow">
  <head>
    <meta charset="utf-8">
    <title>archiver replay</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <script src="./ui.js"></script>
  </head>
  <body>
    <replay-app-main></replay-app-main>
  </body>
</html>
`;

export class ReplayServer {
  readonly #server: Server;
  readonly #sources: ReplaySources;
  readonly #assets: string;
  #origin = '';

  private constructor(sources: ReplaySources) {
    this.#sources = sources;
    this.#assets = replayWebPageDir();
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  static async start(opts: ReplayServerOptions): Promise<ReplayServer> {
    const server = new ReplayServer(opts.sources);
    const host = opts.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.#server.once('error', (err) =>
        reject(new ReplayServerError('ARCHIVER_REPLAY_LISTEN', listenFailure(`${host}:${opts.port ?? 0}`, err, opts.portFlag ?? '--port'), { cause: err })),
      );
      server.#server.listen(opts.port ?? 0, host, () => resolve());
    });
    const addr = server.#server.address();
    const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
    server.#origin = `http://${host}:${port}`;
    return server;
  }

  get origin(): string {
    return this.#origin;
  }

  /** URL of the archive the viewer loads. */
  get sourceUrl(): string {
    return `${this.#origin}/archive/${encodeURIComponent(this.#sources.entry)}`;
  }

  /** What to open: the viewer on the archive's page list, or on one archived URL. */
  viewerUrl(archivedUrl?: string, ts?: string): string {
    const hash = new URLSearchParams(archivedUrl ? { url: archivedUrl, ...(ts ? { ts } : {}) } : { view: 'pages' });
    return `${this.#origin}/?source=${encodeURIComponent(this.sourceUrl)}#${hash.toString()}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.#origin);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      if (!url.searchParams.has('source')) {
        // A bare visit opens the archive's page list.
        res.writeHead(302, { Location: `/?source=${encodeURIComponent(this.sourceUrl)}#view=pages` }).end();
        return;
      }
      sendBytes(req, res, Buffer.from(REPLAY_APP_HTML, 'utf8'), 'text/html; charset=utf-8');
      return;
    }
    if (url.pathname === '/ui.js' || url.pathname === '/sw.js') {
      this.#sendAsset(req, res, url.pathname.slice(1));
      return;
    }
    if (url.pathname.startsWith('/archive/')) {
      const name = decodeURIComponent(url.pathname.slice('/archive/'.length));
      const source = this.#sources.files.get(name);
      if (source) {
        sendSource(req, res, source);
        return;
      }
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  }

  #sendAsset(req: IncomingMessage, res: ServerResponse, name: string): void {
    res.writeHead(200, {
      'Content-Type': 'application/javascript; charset=utf-8',
      // The worker is updated whenever archiver (and so replaywebpage) is.
      'Cache-Control': 'no-cache',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    pipeline(createReadStream(path.join(this.#assets, name)), res, () => {});
  }
}

function sendBytes(req: IncomingMessage, res: ServerResponse, body: Buffer, contentType: string): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(body.length), 'Cache-Control': 'no-cache' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Whole body or one byte range, as the viewer asks (also the console's replay). */
export function sendSource(req: IncomingMessage, res: ServerResponse, source: ByteSource): void {
  const range = parseRange(req.headers.range, source.size);
  const common = { 'Content-Type': source.contentType, 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-cache' };
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...common, 'Content-Range': `bytes */${source.size}` }).end();
    return;
  }
  const { start, end } = range ?? { start: 0, end: source.size - 1 };
  const length = Math.max(0, end - start + 1);
  res.writeHead(range ? 206 : 200, {
    ...common,
    'Content-Length': String(length),
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${source.size}` } : {}),
  });
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return;
  }
  pipeline(source.stream(start, end), res, () => {});
}
