/**
 * Who may use the console. Every API call carries the token (an
 * `Authorization: Bearer` header, or the HttpOnly SameSite=Strict cookie
 * the page trades it for), which a browser never sends cross-site: that
 * also defeats CSRF. A request whose Host is not one of the console's own
 * names is refused, so a hostile page cannot reach it through DNS
 * rebinding; a state-changing request whose Origin is foreign is refused
 * too. Nothing answers with CORS headers.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import { ConsoleError } from './console-errors.js';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export class AccessGuard {
  readonly #tokenDigest: Buffer;
  readonly #token: string;
  /** Host header values (`name:port`) that mean this console. */
  readonly #hosts: ReadonlySet<string>;
  /** Cookies are shared by every port of a host: the name carries the port. */
  readonly cookieName: string;

  constructor(opts: { token: string; hosts: Iterable<string>; port: number }) {
    this.#token = opts.token;
    this.#tokenDigest = digest(opts.token);
    this.#hosts = new Set([...opts.hosts].map((h) => h.toLowerCase()));
    this.cookieName = `archiver_console_${opts.port}`;
  }

  /** 403 unless the Host header names this console. */
  checkHost(req: IncomingMessage): void {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!this.#hosts.has(host)) throw new ConsoleError(403, 'ARCHIVER_CONSOLE_HOST', `requests must be addressed to the console's own host, not ${JSON.stringify(host.slice(0, 100))}`);
  }

  /** 403 when a browser says the request comes from another site. */
  checkOrigin(req: IncomingMessage): void {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null') {
      let host: string;
      try {
        host = new URL(origin).host.toLowerCase();
      } catch {
        host = '';
      }
      if (!this.#hosts.has(host)) throw new ConsoleError(403, 'ARCHIVER_CONSOLE_ORIGIN', 'cross-origin requests are refused');
    } else if (origin === 'null') {
      throw new ConsoleError(403, 'ARCHIVER_CONSOLE_ORIGIN', 'cross-origin requests are refused');
    }
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') throw new ConsoleError(403, 'ARCHIVER_CONSOLE_ORIGIN', 'cross-site requests are refused');
  }

  /** Whether the request carries the token, in its Authorization header or its cookie. */
  authorized(req: IncomingMessage): boolean {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      return m !== null && this.#matches(m[1]!);
    }
    const cookie = cookieValue(req.headers.cookie, this.cookieName);
    return cookie !== null && this.#matches(cookie);
  }

  requireAuth(req: IncomingMessage): void {
    if (!this.authorized(req)) throw new ConsoleError(401, 'ARCHIVER_CONSOLE_UNAUTHORIZED', 'the console token is missing or wrong');
  }

  /** The Set-Cookie value that lets the page's later requests (EventSource, the replay frame) carry the token. */
  sessionCookie(): string {
    return `${this.cookieName}=${this.#token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  #matches(candidate: string): boolean {
    return timingSafeEqual(digest(candidate), this.#tokenDigest);
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * Host header values a console bound to `bindHost:port` answers to: the
 * address itself, and `localhost` on loopback; bound to every interface,
 * each interface's address and the machine's name.
 */
export function consoleHostNames(bindHost: string, port: number): string[] {
  const names = new Set<string>();
  const add = (h: string): void => void names.add(`${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port}`);
  add(bindHost);
  const loopback = bindHost === '127.0.0.1' || bindHost === '::1' || bindHost === 'localhost';
  if (loopback) add('localhost');
  if (bindHost === '0.0.0.0' || bindHost === '::') {
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) add(a.address);
    add(os.hostname());
    add('localhost');
  }
  return [...names];
}
