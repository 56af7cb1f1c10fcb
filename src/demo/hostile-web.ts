/**
 * The hostile web: a loopback fixture where every route misbehaves in its
 * own way (see hostile-routes.ts) and hosts differ in how their robots.txt
 * misbehaves — times out, is 10 MB, redirects — plus one address that
 * accepts connections and never answers. Each host is its own 127.0.0.x
 * address, all on one port; `lookup` resolves `<role>.hostile.test`, an IDN
 * host (bücher.hostile.test) and a name that does not resolve at all.
 * Every request is logged with per-host timing (request-log.ts), so tests
 * judge the crawler from the server's side.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type LookupFunction, type Server as TcpServer, type Socket } from 'node:net';
import { ArchiverError } from '../core/errors.js';
import { indexPage, robotsTxt, route, send, type RobotsBehaviour, type RouteContext } from './hostile-routes.js';
import { preciseClock, RequestLog, type RequestLogEntry } from './request-log.js';
import { listenOne } from './listen.js';

export type { RequestLogEntry } from './request-log.js';

/** The hosts of the hostile web, by role; every HTTP host serves every route. */
export const HOSTILE_ROLES = {
  main: 'normal',
  peer: 'normal',
  limited: 'normal',
  unavailable: 'normal',
  robotsTimeout: 'timeout',
  robotsHuge: 'huge',
  robotsRedirect: 'redirect',
} as const satisfies Record<string, RobotsBehaviour>;
export type HostileRole = keyof typeof HOSTILE_ROLES | 'silent';

/** The domain `lookup` answers for; the IDN host maps to `main`. */
export const HOSTILE_DOMAIN = 'hostile.test';
export const IDN_HOST = `bücher.${HOSTILE_DOMAIN}`;
export const NXDOMAIN_HOST = `nxdomain.${HOSTILE_DOMAIN}`;

export interface HostileWebOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Last octet of the first address (default 40 → 127.0.0.40 … 127.0.0.47). */
  firstAddress?: number;
  /** Decoded size of the gzip bomb; default 256 MiB. */
  bombDecodedBytes?: number;
}

export class HostileWebError extends ArchiverError {}

const PORT_ATTEMPTS = 10;
const ROLE_ORDER: readonly HostileRole[] = [...(Object.keys(HOSTILE_ROLES) as HostileRole[]), 'silent'];

export class HostileWeb {
  readonly port: number;
  readonly #addresses: ReadonlyMap<HostileRole, string>;
  readonly #log: RequestLog;
  readonly #servers: Server[];
  readonly #silent: TcpServer;
  readonly #silentSockets = new Set<Socket>();
  readonly #timers: Set<NodeJS.Timeout>;

  private constructor(
    port: number, addresses: ReadonlyMap<HostileRole, string>, log: RequestLog, servers: Server[], silent: TcpServer, timers: Set<NodeJS.Timeout>,
  ) {
    this.#timers = timers;
    this.port = port;
    this.#addresses = addresses;
    this.#log = log;
    this.#servers = servers;
    this.#silent = silent;
    silent.on('connection', (socket) => {
      // Accept, read nothing, answer nothing.
      this.#silentSockets.add(socket);
      socket.pause();
      socket.once('close', () => this.#silentSockets.delete(socket));
    });
  }

  static async start(opts: HostileWebOptions = {}): Promise<HostileWeb> {
    const first = opts.firstAddress ?? 40;
    if (!Number.isInteger(first) || first < 1 || first + ROLE_ORDER.length > 255) {
      throw new HostileWebError('ARCHIVER_FIXTURE_OPTIONS', `firstAddress must leave room for ${ROLE_ORDER.length} addresses, got ${first}`);
    }
    const addresses = new Map(ROLE_ORDER.map((role, i) => [role, `127.0.0.${first + i}`] as const));
    const behaviourOf = new Map<string, RobotsBehaviour>(
      Object.entries(HOSTILE_ROLES).map(([role, b]) => [addresses.get(role as HostileRole) as string, b]),
    );
    const log = new RequestLog(preciseClock);
    const cache = new Map<string, Buffer>();
    // Timers of unfinished responses, cleared on close (they are created before the instance exists).
    const timers = new Set<NodeJS.Timeout>();
    const ctx: RouteContext = {
      bombDecodedBytes: opts.bombDecodedBytes ?? 256 * 1024 * 1024,
      cache,
      track: (timer) => {
        timers.add(timer);
      },
    };
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      handle(req, res, log, behaviourOf.get(req.socket.localAddress ?? '') ?? 'normal', ctx);
    };
    const httpAddresses = ROLE_ORDER.filter((r) => r !== 'silent').map((r) => addresses.get(r) as string);
    const { port, servers, silent } = await listenAll(httpAddresses, addresses.get('silent') as string, opts.port ?? 0, handler);
    return new HostileWeb(port, addresses, log, servers, silent, timers);
  }

  /** host:port of a role (an IP address). */
  host(role: HostileRole): string {
    return `${this.#addresses.get(role)}:${this.port}`;
  }

  /** An absolute URL on a role's host. */
  url(role: HostileRole, path: string): string {
    return `http://${this.host(role)}${path}`;
  }

  /** Every request the HTTP hosts saw end, in the order they ended. */
  get requests(): RequestLogEntry[] {
    return this.#log.entries;
  }

  /** Requests (ended) to one role's host. */
  requestsTo(role: HostileRole): RequestLogEntry[] {
    const host = this.host(role);
    return this.#log.entries.filter((r) => r.host === host);
  }

  /**
   * A dns.lookup for the crawler: `<role>.hostile.test` and the IDN host go
   * to loopback, `nxdomain.hostile.test` fails with ENOTFOUND, anything else
   * goes to the system resolver.
   */
  readonly lookup: LookupFunction = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const address = this.#resolve(hostname);
    if (address === undefined) return (dnsLookup as unknown as LookupFunction)(hostname, options as never, callback as never);
    if (address === null) {
      const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      return callback(err);
    }
    if (options?.all) callback(null, [{ address, family: 4 } satisfies LookupAddress]);
    else callback(null, address, 4);
  }) as LookupFunction;

  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const s of this.#silentSockets) s.destroy();
    await Promise.all([
      ...this.#servers.map((s) => new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      })),
      new Promise<void>((resolve) => this.#silent.close(() => resolve())),
    ]);
  }

  /** undefined: not ours; null: ours but does not exist; else an address. */
  #resolve(hostname: string): string | null | undefined {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (!name.endsWith(`.${HOSTILE_DOMAIN}`)) return undefined;
    if (name === new URL(`http://${IDN_HOST}/`).hostname) return this.#addresses.get('main') ?? null;
    const role = name.slice(0, -(HOSTILE_DOMAIN.length + 1));
    for (const [r, address] of this.#addresses) if (r.toLowerCase() === role) return address;
    return null;
  }
}

function handle(req: IncomingMessage, res: ServerResponse, log: RequestLog, robots: RobotsBehaviour, ctx: RouteContext): void {
  const serverHost = `${req.socket.localAddress}:${req.socket.localPort}`;
  const ticket = log.begin({
    serverHost,
    hostHeader: req.headers.host,
    path: req.url ?? '/',
    method: req.method ?? 'GET',
    userAgent: req.headers['user-agent'] ?? '',
  });
  // Also fires when the client drops the connection of a response never finished (status 0).
  res.once('close', () => ticket.finish(res.writableFinished ? res.statusCode : 0, 'identity'));
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://hostile.invalid');
  } catch {
    send(res, 400, 'text/plain', 'bad request\n');
    return;
  }
  if (url.pathname === '/robots.txt') return robotsTxt(robots, res);
  if (url.pathname === '/') return send(res, 200, 'text/html', indexPage());
  const handler = route(url.pathname);
  if (handler !== null) return handler(req, res, url, ctx);
  if (/^\/(enc|sink|secret)\//.test(url.pathname)) return send(res, 200, 'text/html', '<!doctype html><p>leaf</p>\n');
  send(res, 404, 'text/html', '<!doctype html><p>not here</p>\n');
}

async function closeAll(servers: ReadonlyArray<Server | TcpServer>): Promise<void> {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
}

/** One HTTP server per address plus the silent TCP server, all on one port (retrying another when port 0 clashes). */
async function listenAll(
  addresses: readonly string[], silentAddress: string, port: number, handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ port: number; servers: Server[]; silent: TcpServer }> {
  let lastError: unknown;
  for (let attempt = 0; attempt < (port === 0 ? PORT_ATTEMPTS : 1); attempt++) {
    const servers = addresses.map(() => createServer(handler));
    const silent = createTcpServer();
    try {
      let chosen = port;
      for (const [i, server] of servers.entries()) chosen = await listenOne(server, addresses[i] as string, chosen);
      await listenOne(silent, silentAddress, chosen);
      return { port: chosen, servers, silent };
    } catch (err) {
      lastError = err;
      await closeAll([...servers, silent]);
    }
  }
  throw new HostileWebError('ARCHIVER_FIXTURE_LISTEN', `cannot listen on ${addresses.join(', ')} port ${port}`, { cause: lastError });
}
