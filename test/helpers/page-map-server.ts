/**
 * A hand-built web for the focused-crawl tests: HTML pages by path, served
 * on loopback (port 0), every request's path recorded in the order it
 * arrived, so that a test judges a crawl's order from the server's side;
 * `pageMapFixture` does it for a whole suite, with a temporary directory.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import type { AddressInfo } from 'node:net';

export interface PageMapServer {
  origin: string;
  /** Request paths, in the order they arrived (a test may empty it). */
  asked: string[];
  close(): Promise<void>;
}

/** Serves `pages` (path → HTML); any other path is a 404. */
export async function servePageMap(pages: ReadonlyMap<string, string>): Promise<PageMapServer> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    asked.push(p);
    const body = pages.get(p);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': body === undefined ? 'text/plain' : 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface PageMapFixture {
  /** Set in `before()`. */
  web: PageMapServer;
  /** A temporary directory for the crawls' jobs, removed in `after()`. */
  tmp: string;
}

/** Registers node:test hooks that serve `site()` and make a temporary directory (named after `name`) for the suite, and close both after it. */
export function pageMapFixture(name: string, site: () => ReadonlyMap<string, string>): PageMapFixture {
  const f = {} as PageMapFixture;
  before(async () => {
    f.tmp = await mkdtemp(path.join(os.tmpdir(), `archiver-${name}-`));
    f.web = await servePageMap(site());
  });
  after(async () => {
    await f.web.close();
    await rm(f.tmp, { recursive: true, force: true });
  });
  return f;
}
