/**
 * A benchmark web grown by preferential attachment, the shape of the
 * "hosts left idle at realistic latency" issue: N hosts of about 210 pages,
 * one seed, about 70% of links within a host, some eight levels deep.
 *
 * Pages are created one at a time, hosts in turn. Each new page is linked
 * from one existing page (its parent, so a crawl from the seed finds it;
 * the parent is chosen uniformly among pages above `maxDepth`, which keeps
 * the web about `maxDepth` levels deep) and links itself to a few existing
 * pages chosen with probability proportional to their in-degree + 1
 * (preferential attachment: a few hubs, a long tail). Every link, parent
 * links included, stays on the page's host with probability
 * `sameHostShare`. Every page also links to its host's home, as a site's
 * navigation does. Deterministic from `seed`; served by FixtureWeb (its
 * `generate` option), so the request log and bodyFor() work as for the
 * fixture web.
 */
import { escapeHtml, PageLinks } from '../src/demo/html.js';
import { makeParagraph, makeTitle } from '../src/demo/prose.js';
import { Rng } from '../src/demo/random.js';
import { makeResource, type Resource } from '../src/demo/resource.js';
import type { GeneratedWeb, GenerateWebOptions, HostSite } from '../src/demo/site-generator.js';

export interface PaWebShape {
  /** Pages per host (the home page included). */
  pagesPerHost: number;
  /** Share of links whose two ends are on the same host. */
  sameHostShare: number;
  /** Links a new page makes to existing pages (besides its home link); drawn in [min, max]. */
  linksPerPage: readonly [min: number, max: number];
  /** Deepest tree level a parent link reaches from the seed. */
  maxDepth: number;
  /** Hosts (by index, counted from the last) whose robots.txt answers 500. */
  robots500Hosts: number;
}

export const DEFAULT_PA_SHAPE: Readonly<PaWebShape> = Object.freeze({
  pagesPerHost: 210,
  sameHostShare: 0.7,
  linksPerPage: [4, 12] as const,
  maxDepth: 8,
  robots500Hosts: 1,
});

/** What the generator built, for the bench's report. */
export interface PaWebFigures {
  pages: number;
  links: number;
  /** Of `links`, the share within one host. */
  sameHostShare: number;
  /** Pages by breadth-first depth from the seed over every link (index = depth). */
  depthHistogram: number[];
  /** Largest in-degree, and the share of pages with in-degree ≤ 2. */
  maxInDegree: number;
  lowInDegreeShare: number;
}

interface Page {
  host: number;
  /** Index within its host; 0 is the home page `/`. */
  local: number;
  depth: number;
  path: string;
  title: string;
  out: number[];
}

/** Preferential-attachment draws: each page holds one ticket, plus one per incoming link. */
class Tickets {
  readonly all: number[] = [];
  readonly byHost: number[][];

  constructor(hosts: number) {
    this.byHost = Array.from({ length: hosts }, () => []);
  }

  add(page: number, host: number): void {
    this.all.push(page);
    this.byHost[host]!.push(page);
  }
}

/** Generates the web; `figures` receives its shape, measured. */
export function generatePaWeb(opts: GenerateWebOptions, shape: PaWebShape = DEFAULT_PA_SHAPE, figures?: (f: PaWebFigures) => void): GeneratedWeb {
  const rng = new Rng(opts.seed);
  const origins = opts.addresses.map((a) => `http://${a}:${opts.port}`);
  const hostCount = origins.length;
  const total = hostCount * shape.pagesPerHost;
  const pages: Page[] = [];
  const tickets = new Tickets(hostCount);
  // Pages a new page may hang under (depth < maxDepth), all and per host.
  const parents: number[] = [];
  const parentsByHost: number[][] = Array.from({ length: hostCount }, () => []);
  let sameHostLinks = 0;
  let links = 0;
  const link = (from: number, to: number): void => {
    const source = pages[from]!;
    if (from === to || source.out.includes(to)) return;
    source.out.push(to);
    tickets.add(to, pages[to]!.host);
    links++;
    if (pages[to]!.host === source.host) sameHostLinks++;
  };
  /** A uniform draw from `own` (same host) or, failing the same-host coin, from `any` off the host. */
  const drawAcross = (own: readonly number[], any: readonly number[], host: number): number | undefined => {
    if (own.length > 0 && (rng.next() < shape.sameHostShare || hostCount === 1)) return rng.pick(own);
    for (let tries = 0; tries < 16 && any.length > 0; tries++) {
      const p = rng.pick(any);
      if (pages[p]!.host !== host) return p;
    }
    return own.length > 0 ? rng.pick(own) : undefined;
  };

  for (let i = 0; i < total; i++) {
    const host = i % hostCount;
    const local = Math.floor(i / hostCount);
    const page: Page = { host, local, depth: 0, path: local === 0 ? '/' : `/page/${local}.html`, title: makeTitle(rng), out: [] };
    pages.push(page);
    if (i > 0) {
      const parent = drawAcross(parentsByHost[host]!, parents, host)!;
      page.depth = pages[parent]!.depth + 1;
      link(parent, i);
    }
    const [min, max] = shape.linksPerPage;
    const wanted = rng.int(min, max);
    for (let k = 0; k < wanted && i > 0; k++) {
      const target = drawAcross(tickets.byHost[host]!, tickets.all, host);
      if (target !== undefined) link(i, target);
    }
    tickets.add(i, host);
    if (page.depth < shape.maxDepth) {
      parents.push(i);
      parentsByHost[host]!.push(i);
    }
  }
  // Hosts take turns, so page h is host h's home.
  pages.forEach((page, i) => {
    if (page.local !== 0) link(i, page.host);
  });

  const hosts: HostSite[] = origins.map((origin, h) => {
    const resources = new Map<string, Resource>();
    for (const page of pages) {
      if (page.host === h) resources.set(page.path, renderPage(page, pages, origins));
    }
    const robots500 = h >= hostCount - shape.robots500Hosts;
    resources.set('/robots.txt', robots500
      ? makeResource('Internal Server Error\n', { status: 500, contentType: 'text/plain' })
      : makeResource('User-agent: *\nDisallow:\n', { contentType: 'text/plain; charset=utf-8' }));
    return {
      index: h,
      hostPort: origin.slice('http://'.length),
      origin,
      // A robots.txt answering 500 disallows the whole host (RFC 9309).
      disallowedPrefixes: robots500 ? ['/'] : [],
      resources,
      aliases: new Map(),
      notFound: makeResource('<!DOCTYPE html>\n<title>Not found</title>\n<p>No such page.</p>\n', { status: 404, contentType: 'text/html; charset=utf-8' }),
    };
  });
  figures?.(measure(pages, links, sameHostLinks));
  return { hosts, seeds: [`${origins[0]}/`] };
}

function renderPage(page: Page, pages: readonly Page[], origins: readonly string[]): Resource {
  const origin = origins[page.host]!;
  const links = new PageLinks(origin + page.path);
  const rng = new Rng(page.host * 100_003 + page.local);
  const items = page.out.map((to) => {
    const target = pages[to]!;
    // Root-relative on the same host, absolute elsewhere, as sites write them.
    const href = target.host === page.host ? target.path : origins[target.host]! + target.path;
    return `<li><a href="${links.href(href)}">${escapeHtml(target.title)}</a></li>`;
  });
  const paragraphs = Array.from({ length: rng.int(3, 8) }, () => `<p>${makeParagraph(rng, rng.int(3, 7))}</p>`);
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(page.title)}</title></head><body>`,
    `<h1>${escapeHtml(page.title)}</h1>`,
    ...paragraphs,
    '<ul>', ...items, '</ul>',
    '</body></html>',
    '',
  ].join('\n');
  return makeResource(html, {
    contentType: 'text/html; charset=utf-8',
    gzip: page.local % 3 === 0,
    links: links.links,
    modifiedOffsetSec: page.local * 3600,
  });
}

function measure(pages: readonly Page[], links: number, sameHost: number): PaWebFigures {
  const depth = new Int32Array(pages.length).fill(-1);
  const order = [0];
  depth[0] = 0;
  for (let i = 0; i < order.length; i++) {
    const from = order[i]!;
    for (const to of pages[from]!.out) {
      if (depth[to] !== -1) continue;
      depth[to] = depth[from]! + 1;
      order.push(to);
    }
  }
  const histogram: number[] = [];
  for (const d of depth) if (d >= 0) histogram[d] = (histogram[d] ?? 0) + 1;
  const inDegree = new Int32Array(pages.length);
  for (const page of pages) for (const to of page.out) inDegree[to]!++;
  let low = 0;
  for (const d of inDegree) if (d <= 2) low++;
  return {
    pages: pages.length,
    links,
    sameHostShare: sameHost / Math.max(1, links),
    depthHistogram: Array.from(histogram, (n) => n ?? 0),
    maxInDegree: Math.max(...inDegree),
    lowInDegreeShare: low / pages.length,
  };
}
