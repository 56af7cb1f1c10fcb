/**
 * A deterministic multi-host web served on loopback: the demo web of the
 * quick start, the fixture of the end-to-end tests and the benchmark web.
 * Each host listens on its own 127.0.0.x address, all on one port, so URLs
 * carry IPs and no DNS is involved. Bodies are generated once at start; a
 * request is a table lookup, logged with per-host timing for politeness
 * checks. See site-generator.ts for what the web contains.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Clock } from '../core/clock.js';
import { ArchiverError } from '../core/errors.js';
import { computeExpectedUrls, type ExpectedUrls } from './reachability.js';
import { preciseClock, RequestLog, type RequestLogEntry } from './request-log.js';
import type { Resource } from './resource.js';
import { generateWeb, type GenerateWebOptions, type GeneratedWeb, type HostSite } from './site-generator.js';
import { listenOne } from './listen.js';
import { listenFailure } from '../core/listen-failure.js';

export type { RequestLogEntry } from './request-log.js';
export type { ExpectedUrls } from './reachability.js';

export interface FixtureWebOptions {
  /** Hosts to serve, each on its own loopback address (127.0.0.2, 127.0.0.3, …) — all on one shared port. */
  hosts: number;
  /** Ordinary article pages per host; home, section, special pages and assets come on top. */
  pagesPerHost: number;
  /** 0 (default) = pick a free port. */
  port?: number;
  /** Last octet of the first host address, default 2 → 127.0.0.2. */
  firstAddress?: number;
  /** Generation seed, default 1: same seed and port → same bytes. */
  seed?: number;
  /** Per-request artificial latency in ms before the response is sent (default 0). */
  latencyMs?: number;
  /** Crawl-delay (seconds) written into the first host's robots.txt; default none. */
  crawlDelaySec?: number;
  /** Epoch-milliseconds clock for the request log (default: wall clock, sub-ms). */
  clock?: Clock;
  /**
   * Another web to serve on the same addresses (a benchmark's): called once
   * the port is known, instead of this module's generator.
   */
  generate?: (opts: GenerateWebOptions) => GeneratedWeb;
}

/** Bad options or a port that cannot be bound on every address. */
export class FixtureWebError extends ArchiverError {}

/** Attempts at finding a port free on every host address when port 0 is asked for. */
const PORT_ATTEMPTS = 10;

export class FixtureWeb {
  readonly origins: string[];
  readonly seeds: string[];
  readonly port: number;
  private readonly web: GeneratedWeb;
  private readonly byHostPort: Map<string, HostSite>;
  private readonly log: RequestLog;
  private readonly servers: Server[];
  private expected: ExpectedUrls | undefined;
  private closing: Promise<void> | undefined;
  /** While held: the responses waiting for release(), and the hosts (host:port) they were asked of. */
  private held: { answers: (() => void)[]; hosts: Set<string> } | null = null;

  private constructor(web: GeneratedWeb, port: number, servers: Server[], log: RequestLog) {
    this.web = web;
    this.port = port;
    this.servers = servers;
    this.log = log;
    this.origins = web.hosts.map((h) => h.origin);
    this.seeds = [...web.seeds];
    this.byHostPort = new Map(web.hosts.map((h) => [h.hostPort, h]));
  }

  static async start(opts: FixtureWebOptions): Promise<FixtureWeb> {
    const first = opts.firstAddress ?? 2;
    checkInteger('hosts', opts.hosts, 1, 254);
    checkInteger('pagesPerHost', opts.pagesPerHost, 1, 1_000_000);
    checkInteger('port', opts.port ?? 0, 0, 65535);
    checkInteger('firstAddress', first, 1, 255 - opts.hosts);
    checkInteger('latencyMs', opts.latencyMs ?? 0, 0, 600_000);
    if (opts.crawlDelaySec !== undefined && !(opts.crawlDelaySec >= 0)) {
      throw new FixtureWebError('ARCHIVER_FIXTURE_OPTIONS', `crawlDelaySec must be ≥ 0, got ${opts.crawlDelaySec}`);
    }
    const addresses = Array.from({ length: opts.hosts }, (_, i) => `127.0.0.${first + i}`);
    const log = new RequestLog(opts.clock ?? preciseClock);
    const latencyMs = opts.latencyMs ?? 0;
    // The handler needs the instance, which needs the port, which needs listening servers.
    let instance: FixtureWeb | undefined;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      if (instance === undefined) {
        res.writeHead(503, { 'Retry-After': '1' }).end();
        return;
      }
      instance.handle(req, res, latencyMs);
    };
    const { port, servers } = await listenAll(addresses, opts.port ?? 0, handler);
    const genOpts = { addresses, port, pagesPerHost: opts.pagesPerHost, seed: opts.seed ?? 1 };
    const web = (opts.generate ?? generateWeb)(opts.crawlDelaySec === undefined ? genOpts : { ...genOpts, crawlDelaySec: opts.crawlDelaySec });
    instance = new FixtureWeb(web, port, servers, log);
    return instance;
  }

  /** Every request served (since the last takeRequests()), in the order the responses ended. */
  get requests(): RequestLogEntry[] {
    return this.log.entries;
  }

  /** Returns the requests logged so far and starts an empty log (e.g. between benchmark runs). */
  takeRequests(): RequestLogEntry[] {
    return this.log.take();
  }

  /**
   * Every URL a correct crawler should capture (any status, robots.txt
   * included) and the robots-disallowed ones it must never request; also the
   * URLs reachable only through a meta-robots-nofollow page.
   */
  expectedUrls(): ExpectedUrls {
    this.expected ??= computeExpectedUrls(this.web.hosts, this.web.seeds, (url) => this.resolve(url));
    return {
      reachable: [...this.expected.reachable],
      disallowed: [...this.expected.disallowed],
      nofollowOnly: [...this.expected.nofollowOnly],
    };
  }

  /**
   * The exact body bytes sent for a URL: the gzip bytes for a compressed
   * resource when the request accepted gzip (the default assumption), the
   * identity bytes otherwise. Undefined for URLs that are not on this web.
   */
  bodyFor(url: string, acceptedGzip = true): Buffer | undefined {
    const found = this.resolve(url);
    if (found === undefined) return undefined;
    return acceptedGzip && found.resource.gzipBody !== null ? found.resource.gzipBody : found.resource.body;
  }

  /**
   * Answer nothing until release(): requests are taken (and logged as in
   * flight) but wait. A test holds the web while the crawl's processes start,
   * and lets go once the requests show what it waits for (heldHosts()).
   */
  hold(): void {
    this.held ??= { answers: [], hosts: new Set() };
  }

  /** The hosts (host:port) with a request waiting while held, in no order. */
  heldHosts(): string[] {
    return [...(this.held?.hosts ?? [])];
  }

  /** Answer every held request, and later ones at once. */
  release(): void {
    const held = this.held;
    this.held = null;
    for (const answer of held?.answers ?? []) answer();
  }

  /** The status this web answers for a URL, undefined off the web. */
  statusFor(url: string): number | undefined {
    return this.resolve(url)?.resource.status;
  }

  close(): Promise<void> {
    this.release();
    this.closing ??= Promise.all(
      this.servers.map((server) => new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
    ).then(() => undefined);
    return this.closing;
  }

  private resolve(url: string): { host: HostSite; resource: Resource } | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (parsed.protocol !== 'http:') return undefined;
    const host = this.byHostPort.get(`${parsed.hostname}:${parsed.port === '' ? '80' : parsed.port}`);
    if (host === undefined) return undefined;
    return { host, resource: lookup(host, parsed.pathname + parsed.search) };
  }

  private handle(req: IncomingMessage, res: ServerResponse, latencyMs: number): void {
    const serverHost = `${req.socket.localAddress ?? ''}:${req.socket.localPort ?? 0}`;
    const target = req.url ?? '/';
    const ticket = this.log.begin({
      serverHost,
      hostHeader: req.headers.host,
      path: target,
      method: req.method ?? 'GET',
      userAgent: req.headers['user-agent'] ?? '',
    });
    let encoding: 'gzip' | 'identity' = 'identity';
    res.once('close', () => ticket.finish(res.writableFinished ? res.statusCode : 0, encoding));
    const site = this.byHostPort.get(serverHost);
    const respond = (): void => {
      if (res.destroyed) return;
      if (site === undefined) {
        res.writeHead(421).end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' }).end();
        return;
      }
      const resource = lookup(site, target);
      const gzip = resource.gzipBody !== null && acceptsGzip(req.headers['accept-encoding']);
      encoding = gzip ? 'gzip' : 'identity';
      ticket.lastWrite();
      writeResource(res, resource, gzip, req.method === 'HEAD');
      // end() corks the socket and writes at the next tick; the end is logged once written.
      // What the kernel did not take at once (the socket's buffer full) leaves when it drains ('finish').
      process.nextTick(() => {
        if (!res.writableEnded || res.destroyed) return;
        if (req.socket.writableLength === 0) ticket.sent();
        else
          res.once('finish', () => {
            ticket.lastWrite();
            ticket.sent();
          });
      });
    };
    const answer = (): void => {
      if (latencyMs > 0) setTimeout(respond, latencyMs);
      else respond();
    };
    if (this.held === null) return answer();
    this.held.hosts.add(serverHost);
    this.held.answers.push(answer);
  }
}

function lookup(host: HostSite, target: string): Resource {
  const direct = host.resources.get(target);
  if (direct !== undefined) return direct;
  const aliased = host.aliases.get(target);
  return (aliased === undefined ? undefined : host.resources.get(aliased)) ?? host.notFound;
}

function writeResource(res: ServerResponse, resource: Resource, gzip: boolean, headOnly: boolean): void {
  const body = gzip && resource.gzipBody !== null ? resource.gzipBody : resource.body;
  for (const [name, value] of resource.headers) res.setHeader(name, value);
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  if (!resource.chunked) res.setHeader('Content-Length', String(body.length));
  res.writeHead(resource.status);
  if (headOnly) {
    res.end();
    return;
  }
  if (!resource.chunked) {
    res.end(body);
    return;
  }
  // Several writes without Content-Length: Node frames each as its own chunk.
  const third = Math.ceil(body.length / 3);
  res.write(body.subarray(0, third));
  res.write(body.subarray(third, 2 * third));
  res.end(body.subarray(2 * third));
}

/** True when Accept-Encoding admits gzip (explicitly or via *) with a non-zero q. */
function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== 'x-gzip' && coding.trim() !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new FixtureWebError('ARCHIVER_FIXTURE_OPTIONS', `${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

async function closeQuietly(servers: Server[]): Promise<void> {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
}

/** One server per address, all on the same port (a free one when `port` is 0). */
async function listenAll(
  addresses: readonly string[], port: number, handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ port: number; servers: Server[] }> {
  let lastError: unknown;
  for (let attempt = 0; attempt < (port === 0 ? PORT_ATTEMPTS : 1); attempt++) {
    const servers = addresses.map(() => {
      const server = createServer(handler);
      // Longer than a crawler's politeness pauses, so its keep-alive pool stays useful.
      server.keepAliveTimeout = 10_000;
      return server;
    });
    try {
      const [firstServer, ...rest] = servers;
      if (firstServer === undefined) throw new Error('no addresses');
      const chosen = await listenOne(firstServer, addresses[0] as string, port);
      // Sequentially: a clash on a later address means retrying with another port.
      for (let i = 0; i < rest.length; i++) await listenOne(rest[i] as Server, addresses[i + 1] as string, chosen);
      return { port: chosen, servers };
    } catch (err) {
      lastError = err;
      await closeQuietly(servers);
    }
  }
  throw new FixtureWebError('ARCHIVER_FIXTURE_LISTEN', listenFailure(`${addresses.join(', ')} port ${port}`, lastError, '--port'), { cause: lastError });
}
