/**
 * The console's routes: a table of method + exact path → handler, plus
 * path prefixes (`/replay/`, `/app/`) whose handlers take the rest of the
 * path. A path known under other methods answers 405 with Allow; control
 * calls are registered as POST only, so a GET can never change anything.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Query } from './http-io.js';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  query: Query;
  /** For prefix routes: the path after the prefix (still percent-encoded). */
  rest: string;
}

export type Handler = (ctx: RequestContext) => Promise<void> | void;

export type Access =
  /** Anyone who reached the right Host: the page's own files. */
  | 'public'
  /** The token is required. */
  | 'token';

export interface Route {
  method: 'GET' | 'POST';
  /** An exact path, or a prefix ending in `/` when `prefix` is set. */
  path: string;
  prefix?: boolean;
  access: Access;
  handler: Handler;
}

export type RouteMatch = { kind: 'route'; route: Route; rest: string } | { kind: 'method'; allow: string[] } | { kind: 'none' };

export class Router {
  readonly #exact = new Map<string, Route[]>();
  readonly #prefixes: Route[] = [];

  add(...routes: Route[]): this {
    for (const r of routes) {
      if (r.prefix) this.#prefixes.push(r);
      else this.#exact.set(r.path, [...(this.#exact.get(r.path) ?? []), r]);
    }
    // Longest prefix first.
    this.#prefixes.sort((a, b) => b.path.length - a.path.length);
    return this;
  }

  match(method: string, pathname: string): RouteMatch {
    const wanted = method === 'HEAD' ? 'GET' : method;
    let candidates = this.#exact.get(pathname);
    let rest = '';
    if (candidates === undefined) {
      const prefix = this.#prefixes.find((r) => pathname.startsWith(r.path));
      if (prefix === undefined) return { kind: 'none' };
      candidates = this.#prefixes.filter((r) => r.path === prefix.path);
      rest = pathname.slice(prefix.path.length);
    }
    const route = candidates.find((r) => r.method === wanted);
    if (route !== undefined) return { kind: 'route', route, rest };
    const allow: string[] = [...new Set(candidates.map((r) => r.method))];
    if (allow.includes('GET')) allow.push('HEAD');
    return { kind: 'method', allow };
  }
}
